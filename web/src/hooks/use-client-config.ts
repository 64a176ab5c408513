// GET /api/client-config, fetched once per page load and shared (analytics reads it too). Until it answers,
// or when it fails, payments count as off: nothing payment-related is shown.
import { useEffect, useState } from 'react';
import { api, type paths } from '../api/client';

export type ClientConfig = paths['/api/client-config']['get']['responses'][200]['content']['application/json'];

let pending: Promise<ClientConfig | null> | undefined;
let loaded: ClientConfig | null | undefined;

export function loadClientConfig(): Promise<ClientConfig | null> {
  pending ??= api.GET('/api/client-config').then(
    ({ data }) => (loaded = data ?? null),
    () => (loaded = null),
  );
  return pending;
}

export function useClientConfig(): ClientConfig | null {
  const [config, setConfig] = useState<ClientConfig | null>(loaded ?? null);
  useEffect(() => {
    let live = true;
    void loadClientConfig().then((c) => live && setConfig(c));
    return () => {
      live = false;
    };
  }, []);
  return config;
}

/** True when the service is configured for payments (Upgrade and Manage subscription are offered). */
export const usePaymentsEnabled = (): boolean => useClientConfig()?.payments.enabled === true;
