// The pixel size of images by URL, as the browser decodes them (naturalWidth × naturalHeight), for checks made
// before a run (canvas/input-limits.ts): each URL is measured once per page and kept (a few hundred at most); one
// that cannot be loaded has no size, and the service then checks it when the run starts.
import { useEffect, useReducer } from 'react';

export interface PixelSize {
  width: number;
  height: number;
}

/** Sizes measured (null: the image could not be loaded), oldest first. */
const sizes = new Map<string, PixelSize | null>();
const measuring = new Map<string, Promise<void>>();
const KEPT = 500;

function measure(url: string): Promise<void> {
  let pending = measuring.get(url);
  if (!pending) {
    pending = new Promise<void>((resolve) => {
      const image = new Image();
      const done = (size: PixelSize | null) => {
        measuring.delete(url);
        sizes.set(url, size);
        if (sizes.size > KEPT) sizes.delete(sizes.keys().next().value!);
        resolve();
      };
      image.onload = () => done(image.naturalWidth > 0 ? { width: image.naturalWidth, height: image.naturalHeight } : null);
      image.onerror = () => done(null);
      image.decoding = 'async';
      image.src = url;
    });
    measuring.set(url, pending);
  }
  return pending;
}

/** The size of each image (undefined: no URL, not measured yet, or not loadable), in the order given. */
export function useImageSizes(urls: readonly (string | undefined)[]): Array<PixelSize | undefined> {
  const [, measured] = useReducer((n: number) => n + 1, 0);
  const key = urls.join('\n');
  useEffect(() => {
    let live = true;
    for (const url of key.split('\n')) if (url && !sizes.has(url)) void measure(url).then(() => live && measured());
    return () => {
      live = false;
    };
  }, [key]);
  return urls.map((url) => (url ? (sizes.get(url) ?? undefined) : undefined));
}
