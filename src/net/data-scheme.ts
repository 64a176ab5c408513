// Whether a URL is a `data:` URL: the one test, without Node's Buffer (./data-url.ts decodes them), so that the canvas
// rules (src/collab/canvas-rules.ts), which the web client imports too, can use it.
const DATA_SCHEME = /^data:/i;

/** Whether `url` is a `data:` URL (of any kind; decodeDataUrl decides whether it is a usable one). */
export const isDataUrl = (url: string): boolean => DATA_SCHEME.test(url);
