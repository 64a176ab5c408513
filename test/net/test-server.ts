import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestServer {
  host: string;
  port: number;
  /** `http://host:port`, IPv6 hosts bracketed. */
  origin: string;
  /** Paths of every request that reached the server. */
  requests: string[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  close(): Promise<void>;
}

/** A real HTTP server on a loopback address and a free port; it records everything that reaches it. */
export async function startServer(host: string, handler?: http.RequestListener): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    state.requests.push(req.url ?? '');
    if (handler) return handler(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('reached');
  });
  server.on('connection', (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const state: TestServer = {
    host,
    port,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** Whether this machine can listen on IPv6 loopback (measured, not assumed). */
export async function ipv6LoopbackAvailable(): Promise<boolean> {
  try {
    const probe = await startServer('::1');
    await probe.close();
    return true;
  } catch {
    return false;
  }
}

/** Awaits a promise that must reject with an ImageFetchError-like error and returns that error. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { url?: string; reason?: string }> {
  return promise.then(
    () => {
      throw new Error('expected the fetch to be refused');
    },
    (err: Error) => err,
  );
}
