/** Only web addresses are shown or offered for download (a canvas is data: never run what it holds). */
export const isWebUrl = (url: string) => /^(https?:\/\/|\/(?!\/))/i.test(url);

/** A node's image. */
export function NodeImage({ src, alt }: { src: string; alt: string }) {
  if (!isWebUrl(src)) return <p className="node-error">This image has an address that cannot be shown.</p>;
  return (
    <div className="node-image">
      <img src={src} alt={alt} draggable={false} decoding="async" />
    </div>
  );
}

/** A link that downloads the image (under the stored object's name; a cross-origin URL opens in a tab). */
export function DownloadLink({ src, label }: { src: string; label: string }) {
  if (!isWebUrl(src)) return null;
  const name = fileNameOf(src);
  return (
    <a className="button small nodrag" href={src} download={name} target="_blank" rel="noopener" aria-label={label}>
      Download
    </a>
  );
}

/**
 * The file name an image URL ends with, for the download. Canvases hold whatever was saved: a URL that is not
 * one, or a name with broken percent-encoding (`%E0%A4%A`), gives the name as written or `image.png`.
 */
export function fileNameOf(src: string): string {
  let segment: string;
  try {
    segment = new URL(src, window.location.href).pathname.split('/').pop() ?? '';
  } catch {
    return 'image.png';
  }
  try {
    return decodeURIComponent(segment) || 'image.png';
  } catch {
    return segment || 'image.png';
  }
}
