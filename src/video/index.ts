// Picks the video driver from configuration. The provider's SDK loads only when video is configured.
import type { Config } from '../config.js';
import type { VideoProvider } from './video-provider.js';

export * from './video-provider.js';

/** The configured video provider, or null (the route answers 503) without a token id and secret. */
export async function createVideoProvider(cfg: Config['video']): Promise<VideoProvider | null> {
  if (!cfg.tokenId || !cfg.tokenSecret) return null;
  const { MuxVideo } = await import('./mux-video.js');
  return new MuxVideo({ tokenId: cfg.tokenId, tokenSecret: cfg.tokenSecret, apiUrl: cfg.apiUrl });
}
