// Product analytics (posthog-js), only when GET /api/client-config names a token; otherwise the library is
// never even downloaded (dynamic import). Events carry counts, durations and fixed words only: never a
// prompt, an image URL, a name or an email (the property type below admits nothing else).
import { loadClientConfig } from './hooks/use-client-config';
import type { PostHog } from './posthog';

export type AnalyticsEvent =
  | 'project_created'
  | 'image_uploaded'
  | 'generation_started'
  | 'generation_succeeded'
  | 'generation_failed'
  | 'generation_canceled';

/** Fixed words that may appear as property values. */
type Word = 'file-picker' | 'drop' | 'paste' | 'network' | 'server';
export type AnalyticsProps = Record<string, number | boolean | Word>;

let posthog: PostHog | null = null;
let state: 'pending' | 'on' | 'off' = 'pending';
const queue: Array<(p: PostHog) => void> = [];

function run(action: (p: PostHog) => void): void {
  if (state === 'on' && posthog) action(posthog);
  else if (state === 'pending' && queue.length < 100) queue.push(action);
}

/** Loads and starts analytics when the service is configured for it. Call once at start-up. */
export async function initAnalytics(): Promise<void> {
  try {
    const data = await loadClientConfig();
    if (!data?.analytics) throw new Error('analytics not configured');
    const { startPosthog } = await import('./posthog');
    const client = startPosthog(data.analytics.token, data.analytics.apiHost);
    posthog = client;
    state = 'on';
    for (const action of queue.splice(0)) action(client);
  } catch {
    state = 'off';
    queue.length = 0;
  }
}

export function track(event: AnalyticsEvent, props: AnalyticsProps = {}): void {
  run((p) => p.capture(event, props));
}

/** A page view; the path names no person (project ids are opaque). */
export function trackPageView(): void {
  run((p) => p.capture('$pageview'));
}

/** Ties events to the signed-in user by the opaque user id only. */
export function identify(userId: string): void {
  run((p) => {
    if (p.get_distinct_id() !== userId) p.identify(userId);
  });
}

export function resetAnalytics(): void {
  run((p) => p.reset());
}
