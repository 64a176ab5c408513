// The file host of a fake image provider (fal's and Replicate's CDNs): what a provider names by URL as its output.
// A fake passes GET /files/… here. Besides stored images it serves the hostile answers the service must survive:
// an endless body (counting the bytes the socket took before the client closed it), a body whose Content-Length
// says more than the limit, and redirects to anywhere. Every request is recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface OutputFiles {
  /** Stores `data` and answers its path (`/files/<name>`). */
  put(name: string, data: Buffer, contentType?: string): string;
  /** Answers a request under /files/; false when the path is not one of ours (the fake answers it then). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Paths requested, in order. */
  readonly requested: string[];
  /** Bytes of the last endless answer the socket accepted before the client went away. */
  readonly endlessBytesSent: number;
  /** Resolves when the last endless answer ended (the client closed it). */
  endlessClosed(): Promise<number>;
}

/** How much an endless answer sends at most (if nobody stops reading it): far more than any limit a test sets. */
export const ENDLESS_BYTES = 256 * 1024 * 1024;

export function createOutputFiles(): OutputFiles {
  const files = new Map<string, { data: Buffer; contentType: string }>();
  const requested: string[] = [];
  let endlessBytesSent = 0;
  let closed: Promise<number> = Promise.resolve(0);

  function endless(res: ServerResponse): void {
    endlessBytesSent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    res.writeHead(200, { 'content-type': 'image/png' });
    let stopped = false;
    closed = new Promise((resolve) => res.once('close', () => {
      stopped = true;
      resolve(endlessBytesSent);
    }));
    const pump = () => {
      while (!stopped && endlessBytesSent < ENDLESS_BYTES) {
        endlessBytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!stopped) res.end();
    };
    pump();
  }

  return {
    put(name, data, contentType = 'image/png') {
      files.set(name, { data, contentType });
      return `/files/${name}`;
    },
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (req.method !== 'GET' || !url.pathname.startsWith('/files/')) return false;
      requested.push(url.pathname + url.search);
      const name = url.pathname.slice('/files/'.length);
      if (name === 'endless.png') {
        endless(res);
      } else if (name === 'declared-huge.png') {
        // Says 1 GiB, sends a little, and waits: refused on the header alone.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(1024 ** 3) });
        res.write(Buffer.alloc(1024));
      } else if (name === 'redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        res.end();
      } else {
        const file = files.get(name);
        if (!file) {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        } else {
          res.writeHead(200, { 'content-type': file.contentType, 'content-length': file.data.length });
          res.end(file.data);
        }
      }
      return true;
    },
    requested,
    get endlessBytesSent() {
      return endlessBytesSent;
    },
    endlessClosed: () => closed,
  };
}
