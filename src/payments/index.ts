// Picks the payments driver from configuration. The provider's SDK loads only when payments are configured.
import type { Config } from '../config.js';
import type { Payments } from './payments-provider.js';

export * from './payments-provider.js';

/** The configured payments, or null (routes answer 503) without an access token or a product id. */
export async function createPayments(cfg: Config['payments']): Promise<Payments | null> {
  if (!cfg.accessToken || !cfg.productId) return null;
  const { PolarPayments } = await import('./polar-payments.js');
  const provider = new PolarPayments({ accessToken: cfg.accessToken, productId: cfg.productId, setup: cfg.setup, apiUrl: cfg.apiUrl });
  if (!cfg.webhookSecret) return { provider, webhooks: null };
  const { PolarWebhookVerifier } = await import('./polar-webhooks.js');
  return { provider, webhooks: new PolarWebhookVerifier(cfg.webhookSecret) };
}
