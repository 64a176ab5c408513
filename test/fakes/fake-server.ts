// What every loopback stand-in for a paid API shares: a server on 127.0.0.1 that reads each request's body,
// counts requests in flight, and closes with its connections; a queue of answers the test decides; and the
// writers of JSON and raw answers. Each fake keeps only its provider's wire format.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` (or the address it was started on) */
  origin: string;
  /** Requests whose answer has not been handed to the socket yet. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close: () => Promise<void>;
}

/** `handle` gets the whole body and how many requests were in flight when this one arrived (itself excluded). */
export async function startLoopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: Buffer<ArrayBuffer>, inFlightAtArrival: number) => unknown,
  /** WebSocket upgrades on the same origin (a provider that speaks both, such as ComfyUI). */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  /** The loopback address to listen on (127.0.0.1; another of 127.0.0.0/8 to stand for a host elsewhere). */
  host = '127.0.0.1',
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let maxInFlight = 0;
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const arrivedWith = inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 'finish' comes as soon as the answer is handed to the socket, before the client can react to it.
    let done = false;
    const settle = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.once('finish', settle).once('close', settle);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await handle(req, res, Buffer.concat(chunks), arrivedWith);
  };
  // A failure inside a fake is a bug in the test: it stays an unhandled rejection, which Vitest reports.
  const server = createServer((req, res) => void serve(req, res));
  if (upgrade) server.on('upgrade', upgrade);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers the test queued, in order; the default answer when none is queued. */
export class ReplyQueue<T> {
  private readonly queue: T[] = [];
  constructor(private defaultReply: T) {}
  /** Queues the answer for the next request. */
  reply = (next: T): void => void this.queue.push(next);
  setDefaultReply = (reply: T): void => {
    this.defaultReply = reply;
  };
  next(): T {
    return this.queue.shift() ?? this.defaultReply;
  }
}

/** Something a test waits for (a request held, a cancel arrived): `next()` resolves at the next `fire`. */
export class Arrivals<T> {
  private waiters: ((value: T) => void)[] = [];
  next = (): Promise<T> => new Promise((resolve) => this.waiters.push(resolve));
  fire(value: T): void {
    for (const w of this.waiters.splice(0)) w(value);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  sendRaw(res, status, JSON.stringify(body), contentType);
}

export function sendRaw(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** 1×1 opaque red PNG. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');
