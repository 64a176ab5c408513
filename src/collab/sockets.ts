// The live canvas's WebSockets on the service's own HTTP server (../protocol.ts COLLAB_PATH, and collabPath's
// `/api/collab/<projectId>` for that project's document only: 400 when what follows is not an id): each upgrade is signed
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
import { isUuid } from '../ids.js';
import { COLLAB_PATH, collabTarget } from './protocol.js';
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

function rejectUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404 | 429 | 503, error?: string) {
  const text = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status];
  const body = error === undefined ? '' : JSON.stringify({ error });
  const type = error === undefined ? '' : 'Content-Type: application/json; charset=utf-8\r\n';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export function createSockets({ hocuspocus, authentication, messageBytes, limits, log, clientAddress }: SocketsDeps): Sockets {
  let closed = false;
  const wss = new WebSocketServer({ noServer: true, maxPayload: messageBytes });
  const anonymous = anonymousSockets(limits.anonymousSocketsPerAddress);

  /** `project`: the project the URL names (`/api/collab/<id>`), whose document alone the socket serves; null: any. */
  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, project: string | null) {
    const from = req.headers.origin;
    const signedIn = await authentication.signIn(req);
    if ('status' in signedIn) return rejectUpgrade(socket, signedIn.status);
    if (closed || socket.destroyed) return rejectUpgrade(socket, 503);
    const { context } = signedIn;
    if (project !== null) context.project = project;
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
      context.end = ({ code, reason }) => ws.close(code, reason);
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
        const target = collabTarget((req.url ?? '').split('?')[0]);
        if (!target) {
          if (server.listenerCount('upgrade') === 1) rejectUpgrade(socket, 404);
          return;
        }
        socket.on('error', () => socket.destroy());
        if (target.project !== null && !isUuid(target.project)) return rejectUpgrade(socket, 400, 'Invalid project id in the live canvas URL');
        accept(req, socket, head, target.project).catch((err: unknown) => {
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
