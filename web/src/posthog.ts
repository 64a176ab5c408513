// posthog-js, started with everything off that could record more than the events we send ourselves. Loaded
// only through a dynamic import from analytics.ts, when the service names an analytics token.
import posthog from 'posthog-js';

export type PostHog = typeof posthog;

export function startPosthog(token: string, apiHost: string): PostHog {
  posthog.init(token, {
    api_host: apiHost,
    autocapture: false,
    capture_pageview: false, // sent by trackPageView on each client-side navigation
    capture_pageleave: false,
    disable_session_recording: true,
    disable_surveys: true,
    disable_web_experiments: true,
    disable_external_dependency_loading: true, // no scripts from the analytics host (the CSP allows none)
    advanced_disable_flags: true,
    capture_exceptions: false,
    capture_heatmaps: false,
    capture_dead_clicks: false,
    rageclick: false,
    save_referrer: false,
    person_profiles: 'identified_only',
    // The page before ours may be the identity provider's, with codes in its URL.
    property_denylist: [
      '$referrer',
      '$referring_domain',
      '$initial_referrer',
      '$initial_referring_domain',
      '$session_entry_referrer',
      '$session_entry_referring_domain',
    ],
  });
  return posthog;
}
