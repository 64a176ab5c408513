// The video port: read a video asset's status, directly or through the direct upload that made it.
// One driver per provider (mux-video.ts); src/video/index.ts picks it from configuration.

export interface VideoAsset {
  id: string;
  /** The provider's status, e.g. `preparing`, `ready`, `errored`. */
  status: string;
  playbackId: string | null;
  /** Seconds; null until known. */
  duration: number | null;
}

export interface VideoUpload {
  id: string;
  /** The provider's status, e.g. `waiting`, `asset_created`, `errored`, `cancelled`, `timed_out`. */
  status: string;
  /** null while the upload has not produced an asset. */
  assetId: string | null;
}

export interface VideoProvider {
  /** null when the provider does not know the asset. */
  getAsset(assetId: string): Promise<VideoAsset | null>;
  /** null when the provider does not know the upload. */
  getUpload(uploadId: string): Promise<VideoUpload | null>;
}

/** The provider could not be reached or failed. The message carries no secret. */
export class VideoProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VideoProviderError';
  }
}
