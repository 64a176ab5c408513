// A project's canvas as the service draws it (GET /api/user/project/:id/thumbnail, 320×200 PNG). Its address names
// the canvas version (`?v=`, which the service ignores): a browser reuses an image it already shows for the same
// address without asking, so a canvas edited since gets a new address, and the drawing of that version. The
// browser keeps each drawing and revalidates it (ETag, 304) when it asks. Decorative: the project's name beside it
// says what it is; it opens the project like the name does.
import { useState } from 'react';
import { Link } from '../router';

interface Props {
  projectId: string;
  href: string;
  /** The canvas version (GET /api/user/project/activity); undefined when not known. */
  version: number | undefined;
  /** Whether the versions were asked for yet: until then nothing is loaded (it would be loaded twice). */
  ready: boolean;
}

export function ProjectThumbnail({ projectId, href, version, ready }: Props) {
  const [failed, setFailed] = useState(false);
  const src = `/api/user/project/${encodeURIComponent(projectId)}/thumbnail${version === undefined ? '' : `?v=${version}`}`;
  return (
    <Link className="project-thumbnail" href={href} tabIndex={-1} aria-hidden="true">
      {failed || !ready ? (
        <span className="project-thumbnail-missing" />
      ) : (
        <img
          src={src}
          alt=""
          width={320}
          height={200}
          loading="lazy"
          decoding="async"
          onError={() => setFailed(true)}
        />
      )}
    </Link>
  );
}
