// "Download selected" in the gallery (issue 34 point 10): the chosen generations as one ZIP file, built in the
// browser with fflate (MIT): each PNG read from its named download (GET /api/projects/:id/generations/:gid/download,
// the name its Content-Disposition gives, made unique within the file), stored without recompression (a PNG is
// compressed already), and saved as `<project> - <n> images.zip`.
import { zipSync, type Zippable } from 'fflate';
import { useState } from 'react';
import { generationDownloadPath } from '../api/client';

export type ZipState = { status: 'idle' } | { status: 'working'; done: number; total: number } | { status: 'error'; message: string };

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
function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = name.replace(/(\.[^.]*)?$/, (ext) => ` (${n})${ext}`);
  taken.add(candidate);
  return candidate;
}

/** Saves bytes as a file through a temporary link. */
function save(bytes: Uint8Array, name: string, type: string) {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Freed once the browser has surely read it (revoked at once, some browsers cancel the download).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function useGalleryDownload(projectId: string, projectName: string) {
  const [state, setState] = useState<ZipState>({ status: 'idle' });

  const download = async (generationIds: string[]) => {
    if (generationIds.length === 0 || state.status === 'working') return;
    const files: Zippable = {};
    const taken = new Set<string>();
    setState({ status: 'working', done: 0, total: generationIds.length });
    try {
      for (const [i, id] of generationIds.entries()) {
        const res = await fetch(generationDownloadPath(projectId, id), { credentials: 'same-origin' });
        if (!res.ok) throw new Error(res.status === 404 ? 'One of the images is gone: select again and retry' : `Could not read an image (${res.status})`);
        const name = unique(attachmentName(res.headers.get('content-disposition')) ?? `${id}.png`, taken);
        files[name] = [new Uint8Array(await res.arrayBuffer()), { level: 0 }];
        setState({ status: 'working', done: i + 1, total: generationIds.length });
      }
      save(zipSync(files), `${projectName.replace(/[\p{Cc}/\\:*?"<>|]/gu, ' ').trim() || 'Gallery'} - ${generationIds.length} images.zip`, 'application/zip');
      setState({ status: 'idle' });
    } catch (err) {
      setState({ status: 'error', message: err instanceof TypeError ? 'Could not reach the service: check the connection and try again' : (err as Error).message });
    }
  };

  return { state, download };
}
