// "Download selected" in the gallery (issue 34 point 10): the chosen generations as one ZIP file, built in the
// browser with fflate (MIT): each PNG read from its named download (GET /api/projects/:id/generations/:gid/download,
// the name its Content-Disposition gives, made unique within the file), stored without recompression (a PNG is
// compressed already), and saved as `<project> - <n> images.zip`.
import { zipSync, type Zippable } from 'fflate';
import { useState } from 'react';
import { generationDownloadPath } from '../api/client';
import { attachmentName, uniqueName } from '../download-names';

export type ZipState = { status: 'idle' } | { status: 'working'; done: number; total: number } | { status: 'error'; message: string };

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
        const name = uniqueName(attachmentName(res.headers.get('content-disposition')) ?? `${id}.png`, taken);
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
