// /projects/:id/gallery: every generation into the project (anyone's, newest first; members only) with its
// prompt, author, date and model, and a download named after the project and the prompt. A search box finds by
// words of the prompt (debounced; kept in the URL's `q`, so a search can be linked and survives a reload), and
// "Load more" reads the next page.
import { useEffect, useId, useState } from 'react';
import { generationDownloadPath, type ProjectGeneration } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useGallery } from '../hooks/use-project-generations';
import { useProjectAccess } from '../hooks/use-project-access';
import { useUser } from '../hooks/use-session';
import { galleryPath } from '../paths';
import { Link, navigate, useLocation } from '../router';
import { AppHeader } from './app-header';
import { LoadError } from './load-error';
import { isWebUrl } from './node-image';
import { PageStatus } from './page-status';

/** How long typing pauses before the search runs. */
const DEBOUNCE_MS = 300;

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export default function GalleryPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state: access, reload } = useProjectAccess(projectId, user.id);
  useDocumentTitle(access.status === 'ready' ? `Gallery — ${access.project.name}` : 'Gallery');

  if (access.status === 'ready') return <Gallery projectId={projectId} projectName={access.project.name} />;
  return (
    <>
      <AppHeader />
      {access.status === 'loading' && <PageStatus busy>Loading the gallery…</PageStatus>}
      {access.status === 'not-found' && (
        <PageStatus
          actions={
            <Link className="button primary" href="/projects">
              Back to projects
            </Link>
          }
        >
          This project does not exist, or it is not shared with you.
        </PageStatus>
      )}
      {access.status === 'error' && (
        <PageStatus
          actions={
            <button type="button" className="button" onClick={() => void reload()}>
              Try again
            </button>
          }
        >
          {access.message}
        </PageStatus>
      )}
    </>
  );
}

function Gallery({ projectId, projectName }: { projectId: string; projectName: string }) {
  const searchId = useId();
  const q = useLocation().search.get('q') ?? '';
  const [text, setText] = useState(q);
  const { state, loadMore, reload } = useGallery(projectId, q);

  // Typing settles into the URL (replacing the entry: one history step per visit, not per keystroke).
  useEffect(() => {
    if (text.trim() === q.trim()) return;
    const timer = setTimeout(() => navigate(galleryPath(projectId, text), { replace: true }), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, q, projectId]);

  const canvasHref = `/projects/${encodeURIComponent(projectId)}`;
  const searching = q.trim() !== '';
  return (
    <>
      <AppHeader>
        <nav className="breadcrumb" aria-label="Breadcrumb">
          <Link href="/projects">Projects</Link>
          <span aria-hidden="true">/</span>
          <Link href={canvasHref}>{projectName}</Link>
          <span aria-hidden="true">/</span>
          <span className="breadcrumb-current" aria-current="page">
            Gallery
          </span>
        </nav>
      </AppHeader>
      <main className="page gallery-page">
        <div className="page-heading">
          <h1>Gallery</h1>
          <Link className="button ghost" href={canvasHref}>
            Back to the canvas
          </Link>
        </div>
        <form className="gallery-search" role="search" onSubmit={(event) => (event.preventDefault(), navigate(galleryPath(projectId, text), { replace: true }))}>
          <label htmlFor={searchId} className="visually-hidden">
            Search prompts
          </label>
          <input id={searchId} className="input" type="search" value={text} placeholder="Search prompts, e.g. “sepia”" maxLength={200} onChange={(e) => setText(e.target.value)} />
        </form>

        {state.status === 'error' && state.items.length === 0 && <LoadError className="notice error" message={state.message} onRetry={reload} />}
        {state.status === 'ready' && state.items.length === 0 && (
          <p className="muted" role="status">
            {searching ? `No generations match “${q.trim()}”.` : 'No generations yet: run a generation node on the canvas, and its results gather here.'}
          </p>
        )}
        {state.items.length > 0 && (
          <ul className="gallery-grid" aria-label={searching ? `Generations matching “${q.trim()}”` : 'Generations'}>
            {state.items.map((g) => (
              <GalleryItem key={g.id} projectId={projectId} generation={g} />
            ))}
          </ul>
        )}
        {state.status === 'error' && state.items.length > 0 && <LoadError className="error small" message={state.message} onRetry={reload} />}
        {state.status === 'loading' && (
          <p className="muted" role="status">
            <span className="spinner small" aria-hidden="true" /> Loading…
          </p>
        )}
        {state.status === 'ready' && state.nextCursor && (
          <div className="row gallery-more">
            <button type="button" className="button" onClick={loadMore}>
              Load more
            </button>
          </div>
        )}
      </main>
    </>
  );
}

function GalleryItem({ projectId, generation: g }: { projectId: string; generation: ProjectGeneration }) {
  return (
    <li className="gallery-item" data-generation-id={g.id}>
      {isWebUrl(g.outputImageUrl) ? <img src={g.outputImageUrl} alt={g.prompt} loading="lazy" decoding="async" /> : <div className="gallery-missing" aria-hidden="true" />}
      <div className="gallery-meta">
        <p className="gallery-prompt">{g.prompt}</p>
        <p className="muted small">
          {g.author.name ?? 'Someone'} · <time dateTime={g.createdAt}>{when(g.createdAt)}</time> · {g.model}
        </p>
        <a className="button small" href={generationDownloadPath(projectId, g.id)} download aria-label={`Download “${g.prompt}”`}>
          Download
        </a>
      </div>
    </li>
  );
}
