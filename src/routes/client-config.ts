// GET /api/client-config (public): what the web client needs to know at start-up. Only values meant for
// the browser (the analytics project token, which is meant to be exposed to the client; whether
// payments are configured, never their keys; the upload limit and the image types an upload may be; the
// canvas limits the live canvas holds changes to).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { UPLOAD_TYPES } from '../imaging/object-names.js';

const DEFAULT_ANALYTICS_HOST = 'https://us.i.posthog.com';

const ClientConfig = z
  .object({
    analytics: z
      .object({ token: z.string(), apiHost: z.string().describe('analytics API host (PUBLIC_ANALYTICS_PROXY_API or the provider default)') })
      .nullable()
      .describe('null when analytics is not configured'),
    payments: z
      .object({ enabled: z.boolean().describe('true when payments are configured (access token and product id): the client offers Upgrade and Manage subscription') }),
    uploads: z
      .object({
        maxBytes: z.number().int().describe('The largest file POST /api/upload takes (UPLOAD_MAX_BYTES); larger: 413 File too large'),
        types: z
          .array(z.object({ type: z.string(), name: z.string(), extensions: z.array(z.string()) }))
          .describe('The image types an upload may be (detected from its bytes; anything else: 400 Unsupported file type), with their usual names and file extensions'),
      })
      .describe('What POST /api/upload accepts, so a client can say why it refuses a file before sending it'),
    canvas: z
      .object({
        promptMaxChars: z.number().int().describe('The longest prompt a node may hold (PROMPT_MAX_CHARS); a longer one is refused by REST (400) and by the live canvas (4400 invalid-prompt)'),
        maxNodes: z.number().int().describe('The most nodes a canvas may hold (CANVAS_MAX_NODES; live canvas: 4413 too-many-nodes)'),
        maxEdges: z.number().int().describe('The most edges a canvas may hold (CANVAS_MAX_EDGES; live canvas: 4413 too-many-edges)'),
      })
      .describe('The canvas limits a client keeps to, so that the live canvas never refuses what it writes'),
  })
  .meta({ id: 'ClientConfig' });

/** The analytics API host the client talks to, or undefined when analytics is off. */
export function analyticsHost(analytics: Config['analytics']): string | undefined {
  return analytics.token ? (analytics.proxyApi ?? DEFAULT_ANALYTICS_HOST).replace(/\/+$/, '') : undefined;
}

type CanvasLimits = Pick<Config['limits'], 'promptChars' | 'canvasNodes' | 'canvasEdges'>;

export const clientConfigRoutes: FastifyPluginAsyncZod<{
  analytics: Config['analytics'];
  payments: { enabled: boolean };
  uploadMaxBytes: number;
  canvasLimits: CanvasLimits;
}> = async (app, { analytics, payments, uploadMaxBytes, canvasLimits }) => {
  const body: z.infer<typeof ClientConfig> = {
    analytics: analytics.token ? { token: analytics.token, apiHost: analyticsHost(analytics)! } : null,
    payments: { enabled: payments.enabled },
    uploads: { maxBytes: uploadMaxBytes, types: UPLOAD_TYPES.map((t) => ({ ...t, extensions: [...t.extensions] })) },
    canvas: { promptMaxChars: canvasLimits.promptChars, maxNodes: canvasLimits.canvasNodes, maxEdges: canvasLimits.canvasEdges },
  };
  app.get('/api/client-config', {
    schema: { tags: ['client'], summary: 'Public configuration of the web client (no session needed)', response: { 200: ClientConfig } },
  }, async (_req, reply) => reply.header('cache-control', 'no-cache').send(body));
};
