// The pictures of the example canvas (src/services/example-canvas.ts): our own drawings, made by
// scripts/make-example-images.ts and shipped with the service.
import { readFile } from 'node:fs/promises';

const FILES = ['hills.png', 'boat.png'] as const;

/** The example's two pictures, in their order on the canvas (read once, then kept). */
export const loadExampleImages = (() => {
  let loaded: Promise<Buffer[]> | undefined;
  return () => (loaded ??= Promise.all(FILES.map((name) => readFile(new URL(`./example-canvas/${name}`, import.meta.url)))));
})();
