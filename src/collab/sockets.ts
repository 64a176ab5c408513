// The live canvas's WebSockets on the service's own HTTP server (../protocol.ts COLLAB_PATH): each upgrade is signed
// in (./extensions/authentication.ts signIn: 401/403 with no body, no WebSocket), counted when it has no session
// cookie (./socket-limits.ts anonymousSockets: 429 past COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS), and handed to
// hocuspocus through two wrappers of the socket: the guard of ./socket-limits.ts (every frame read whole and counted,
// send buffer, whole-document answers) and the held acknowledgements of ./frames.ts gatedSocket (sent once the
// change they acknowledge is stored, ./extensions/persistence.ts).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Authentication, SocketContext } from './extensions/authentication.js';
import { gatedSocket } from './frames.js';
import { COLLAB_PATH } from './protocol.js';
import { anonymousSockets, guardSocket, type SocketLimits } from './socket-limits.js';

export interface SocketsDeps {
  hocuspocus: Hocuspocus<SocketContext>;
  authentication: Pick<Authentication, 'signIn' | 'watch'>;
  /** A frame larger than this closes the socket (1009). */
  messageBytes: number;
  limits: SocketLimits;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** The client's address of an upgrade, as the HTTP side sees it (TRUSTED_PROXIES). */
  clientAddress: (req: IncomingMessage) => string;
}

export interface Sockets {
  /** Serves COLLAB_PATH on this HTTP server. */
  mount(server: Server): void;
  /** Refuses upgrades from now on (503) and ends every socket. */
  closeAll(): void;
  close(): void;
}

function rejectUpgrade(socket: Duplex, status: 401 | 403 | 404 | 429 | 503) {
  const text = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status];
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export function createSockets({ hocuspocus, authentication, messageBytes, limits, log, clientAddress }: SocketsDeps): Sockets {
  let closed = false;
  const wss = new WebSocketServer({ noServer: true, maxPayload: messageBytes });
  const anonymous = anonymousSockets(limits.anonymousSocketsPerAddress);

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const from = req.headers.origin;
    const signedIn = await authentication.signIn(req);
    if ('status' in signedIn) return rejectUpgrade(socket, signedIn.status);
    if (closed || socket.destroyed) return rejectUpgrade(socket, 503);
    const { context } = signedIn;
    // Sockets waiting to authenticate with a token are counted per client address (./socket-limits.ts).
    const address = clientAddress(req);
    const gate = context.gate;
    if (gate) {
      const release = anonymous.take(address, gate);
      if (!release) {
        log.warn({ client: address }, 'live socket: refused, too many sockets from this address waiting to authenticate');
        return rejectUpgrade(socket, 429);
      }
      socket.once('close', release);
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const request = new Request(`http://localhost${COLLAB_PATH}`, { headers: from ? { origin: from } : {} });
      authentication.watch(ws, context);
      // Rate, frame checks, send buffer and whole-document answers of this socket (./socket-limits.ts).
      const guard = guardSocket(ws, { limits, log, gate, address });
      const client = hocuspocus.handleConnection(gatedSocket(guard.socket), request, context);
      ws.on('message', (data: Buffer, isBinary) => {
        const frame = guard.admit(data, isBinary);
        if (frame) client.handleMessage(frame);
      });
      ws.on('close', (code, reason) => client.handleClose({ code, reason: reason.toString() }));
      ws.on('error', (err) => {
        guard.failed(err); // e.g. a frame over maxPayload: ws has closed it with 1009
        ws.terminate();
      });
    });
  }

  return {
    mount(server) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = (req.url ?? '').split('?')[0];
        if (path !== COLLAB_PATH && path !== `${COLLAB_PATH}/`) {
          if (server.listenerCount('upgrade') === 1) rejectUpgrade(socket, 404);
          return;
        }
        socket.on('error', () => socket.destroy());
        accept(req, socket, head).catch((err: unknown) => {
          log.error({ err }, 'live documents: an upgrade failed');
          rejectUpgrade(socket, 503);
        });
      });
    },
    closeAll() {
      closed = true;
      hocuspocus.closeConnections();
      for (const ws of wss.clients) ws.terminate();
    },
    close() {
      wss.close();
    },
  };
}
