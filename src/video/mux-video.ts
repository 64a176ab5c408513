// The video driver for Mux through @mux/mux-node. VIDEO_API_URL overrides the API's base URL.
import Mux, { NotFoundError } from '@mux/mux-node';
import { VideoProviderError, type VideoAsset, type VideoProvider, type VideoUpload } from './video-provider.js';

export interface MuxOptions {
  tokenId: string;
  tokenSecret: string;
  apiUrl?: string;
  timeoutMs?: number;
}

export class MuxVideo implements VideoProvider {
  private readonly mux: Mux;

  constructor(opts: MuxOptions) {
    this.mux = new Mux({
      tokenId: opts.tokenId,
      tokenSecret: opts.tokenSecret,
      // Explicit values: the SDK would otherwise read MUX_* environment variables for what is left unset.
      baseURL: opts.apiUrl ?? 'https://api.mux.com',
      webhookSecret: null,
      jwtSigningKey: null,
      jwtPrivateKey: null,
      authorizationToken: null,
      timeout: opts.timeoutMs ?? 15_000,
      maxRetries: 1,
    });
  }

  async getAsset(assetId: string): Promise<VideoAsset | null> {
    const asset = await call('asset', () => this.mux.video.assets.retrieve(assetId));
    if (!asset) return null;
    const ids = asset.playback_ids ?? [];
    const playback = ids.find((p) => p.policy === 'public') ?? ids[0];
    return { id: asset.id, status: asset.status, playbackId: playback?.id ?? null, duration: asset.duration ?? null };
  }

  async getUpload(uploadId: string): Promise<VideoUpload | null> {
    const upload = await call('upload', () => this.mux.video.uploads.retrieve(uploadId));
    if (!upload) return null;
    return { id: upload.id, status: upload.status, assetId: upload.asset_id ?? null };
  }
}

/** A 404 is "not known" (null); any other failure is a VideoProviderError naming the kind and status only. */
async function call<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    const e = err as { name?: string; status?: number };
    throw new VideoProviderError(`Mux ${what} request failed: ${e.name ?? 'Error'}${typeof e.status === 'number' ? ` (HTTP ${e.status})` : ''}`);
  }
}
