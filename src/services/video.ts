// Video assets: the status of an asset, asked for directly or through the direct
// upload that makes it.
import { assetNotFound, videoAssetIdRequired, videoNotConfigured, videoProviderUnavailable } from '../errors.js';
import { VideoProviderError, type VideoProvider } from '../video/index.js';

export interface AssetStatus {
  assetId: string | null;
  uploadId?: string;
  status: string;
  playbackId: string | null;
  duration: number | null;
}

export interface VideoService {
  assetStatus(query: { assetId?: string; uploadId?: string }): Promise<AssetStatus>;
}

export interface VideoDeps {
  /** null when video is not configured: the route answers 503. */
  provider: VideoProvider | null;
  log: { warn(o: object, m: string): void };
}

export function createVideoService({ provider, log }: VideoDeps): VideoService {
  async function viaProvider<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof VideoProviderError) {
        log.warn({ reason: err.message }, 'video provider failed');
        throw videoProviderUnavailable();
      }
      throw err;
    }
  }

  return {
    async assetStatus({ assetId, uploadId }) {
      if (!provider) throw videoNotConfigured();
      if (!assetId && !uploadId) throw videoAssetIdRequired();
      return viaProvider(async () => {
        let id = assetId;
        if (!id) {
          const upload = await provider.getUpload(uploadId!);
          if (!upload) throw assetNotFound();
          if (!upload.assetId) return { assetId: null, uploadId: upload.id, status: upload.status, playbackId: null, duration: null };
          id = upload.assetId;
        }
        const asset = await provider.getAsset(id);
        if (!asset) throw assetNotFound();
        return { assetId: asset.id, ...(uploadId && !assetId ? { uploadId } : {}), status: asset.status, playbackId: asset.playbackId, duration: asset.duration };
      });
    },
  };
}
