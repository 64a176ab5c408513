// POST /api/upload with upload progress (fetch cannot report it; XMLHttpRequest can). The browser sets the
// multipart content type with its boundary.
import { errorDetails, errorMessage, notifyUnauthorized, type UploadResult } from './client';

/** Why an upload did not store the file: the service's answer (`status` 0: it could not be reached). */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly details?: string,
    /** A 429's Retry-After, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function uploadImage(file: File, onProgress: (fraction: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = xhr.response as unknown;
      if (xhr.status === 200 && typeof (body as UploadResult | null)?.url === 'string') return resolve(body as UploadResult);
      if (xhr.status === 401) notifyUnauthorized();
      const retryAfter = Number(xhr.getResponseHeader('retry-after'));
      reject(
        new UploadError(
          errorMessage(body, `Upload failed (HTTP ${xhr.status})`),
          xhr.status,
          errorDetails(body),
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
        ),
      );
    };
    xhr.onerror = () => reject(new UploadError('Upload failed: could not reach the server', 0));
    xhr.onabort = () => reject(new UploadError('Upload cancelled', 0));
    const form = new FormData();
    form.append('file', file, file.name || 'pasted-image.png');
    xhr.send(form);
  });
}
