// The names of files the client saves: the one a download's Content-Disposition gives, and names kept apart in one
// ZIP (hooks/use-gallery-download.ts).

/** The file name of a Content-Disposition header: its UTF-8 `filename*`, else its `filename`. */
export function attachmentName(header: string | null): string | undefined {
  if (!header) return undefined;
  const exact = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (exact) {
    try {
      return decodeURIComponent(exact[1]);
    } catch {
      // a broken encoding: the ASCII name
    }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1] || undefined;
}

/** `name` or, when taken, `name (2).png`, `name (3).png`, … */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = name.replace(/(\.[^.]*)?$/, (ext) => ` (${n})${ext}`);
  taken.add(candidate);
  return candidate;
}
