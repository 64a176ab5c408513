// GET /api/video/asset: a video asset's status. No session (a public route, docs/api.md); rate-limited per
// client address instead.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tooManyRequests } from '../errors.js';
import { ErrorBody } from '../http/schemas.js';
import type { VideoService } from '../services/video.js';

const providerId = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, `_` and `-` only');

const AssetStatus = z
  .object({
    assetId: z.string().nullable().describe('null while the upload has not produced an asset'),
    uploadId: z.string().optional().describe('the upload asked for'),
    status: z.string().describe("the provider's status: `preparing`, `ready`, `errored` (asset); `waiting`, … (upload without an asset)"),
    playbackId: z.string().nullable(),
    duration: z.number().nullable().describe('seconds'),
  })
  .meta({ id: 'VideoAssetStatus' });

/** @fastify/rate-limit route config: `perMinute` requests per client address; none when 0. */
function perAddressPerMinute(perMinute: number) {
  if (perMinute <= 0) return undefined;
  return {
    max: perMinute,
    timeWindow: 60_000,
    hook: 'onRequest' as const,
    keyGenerator: (req: FastifyRequest) => `video:${req.ip}`,
    errorResponseBuilder: (_req: FastifyRequest, context: { ttl: number }) => tooManyRequests(context.ttl / 1000),
  };
}

export const videoPlugin: FastifyPluginAsyncZod<{ video: VideoService; perMinute: number }> = async (app, { video, perMinute }) => {
  const rateLimit = perAddressPerMinute(perMinute);
  app.get('/api/video/asset', {
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['video'],
      summary: "A video asset's status, by asset id or by the direct upload that makes it (no session; rate-limited per address)",
      querystring: z.object({
        assetId: providerId.optional().describe('the asset (takes precedence over uploadId)'),
        uploadId: providerId.optional().describe('a direct upload: its asset, or the upload\'s own status while it has none'),
      }),
      response: { 200: AssetStatus, 400: ErrorBody, 404: ErrorBody, 429: ErrorBody, 502: ErrorBody, 503: ErrorBody },
    },
  }, async (req) => video.assetStatus(req.query));
};
