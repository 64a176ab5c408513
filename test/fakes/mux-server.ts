// A loopback stand-in for Mux Video's API, speaking the REST wire format @mux/mux-node 15 uses:
// `GET /video/v1/assets/:id` and `GET /video/v1/uploads/:id` → `{ data: … }`, 404 for unknown ids, 401
// without the right basic credentials. Records every request; a switch makes it answer 500.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer } from './fake-server.js';

export interface MuxRecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Decoded basic credentials. */
  auth?: { user: string; password: string };
}

export interface FakeAsset {
  id: string;
  status: 'preparing' | 'ready' | 'errored';
  playback_ids?: { id: string; policy: 'public' | 'signed' | 'drm' }[];
  duration?: number;
}

export interface FakeUpload {
  id: string;
  status: 'waiting' | 'asset_created' | 'errored' | 'cancelled' | 'timed_out';
  asset_id?: string;
}

export interface FakeMux {
  /** For `baseURL` (VIDEO_API_URL). */
  baseUrl: string;
  requests: MuxRecordedRequest[];
  addAsset(asset: FakeAsset): void;
  addUpload(upload: FakeUpload): void;
  /** While set, every request is answered with this HTTP status (e.g. 500). */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

const ROUTE = /^\/video\/v1\/(assets|uploads)\/([^/]+)$/;

export async function startFakeMux(opts: { tokenId?: string; tokenSecret?: string } = {}): Promise<FakeMux> {
  const requests: MuxRecordedRequest[] = [];
  const assets = new Map<string, FakeAsset>();
  const uploads = new Map<string, FakeUpload>();
  let failure: number | null = null;

  const server = await startLoopbackServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const auth = basic(req.headers.authorization);
    requests.push({ method: req.method ?? '', path, headers: req.headers, auth });
    if (failure !== null) return sendError(res, failure, 'internal_error', 'An internal error occurred');
    if (opts.tokenId && (auth?.user !== opts.tokenId || auth?.password !== opts.tokenSecret)) {
      return sendError(res, 401, 'unauthorized', 'Unauthorized request');
    }
    const match = ROUTE.exec(path);
    if (req.method !== 'GET' || !match) return sendError(res, 404, 'not_found', 'The requested resource could not be found');
    const id = decodeURIComponent(match[2]);
    const now = Math.floor(Date.now() / 1000).toString();
    if (match[1] === 'assets') {
      const asset = assets.get(id);
      if (!asset) return sendError(res, 404, 'not_found', 'The requested asset does not exist');
      return sendJson(res, 200, {
        data: {
          created_at: now,
          encoding_tier: 'baseline',
          master_access: 'none',
          max_resolution_tier: '1080p',
          progress: { state: asset.status === 'ready' ? 'completed' : 'ingesting', progress: asset.status === 'ready' ? 100 : 10 },
          mp4_support: 'none',
          ...asset,
        },
      });
    }
    const upload = uploads.get(id);
    if (!upload) return sendError(res, 404, 'not_found', 'The requested upload does not exist');
    return sendJson(res, 200, {
      data: { cors_origin: '*', timeout: 3600, new_asset_settings: { playback_policies: ['public'] }, url: 'https://storage.example/upload', ...upload },
    });
  });

  return {
    baseUrl: server.origin,
    requests,
    addAsset: (asset) => void assets.set(asset.id, asset),
    addUpload: (upload) => void uploads.set(upload.id, upload),
    failWith: (status) => { failure = status; },
    close: server.close,
  };
}

function basic(header: string | undefined): MuxRecordedRequest['auth'] {
  const encoded = /^Basic (.+)$/.exec(header ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { error: { type, messages: [message] } });
}

