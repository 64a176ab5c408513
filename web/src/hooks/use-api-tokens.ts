// Personal API tokens (docs/api.md "API tokens"): the signed-in user's tokens, with create (the secret is in the
// answer only) and revoke.
import { useCallback, useEffect, useState } from 'react';
import { api, type ApiToken, type ApiTokenScope, type CreatedApiToken } from '../api/client';
import { call } from './use-projects';

export type ApiTokensState = { status: 'loading' } | { status: 'ready'; tokens: ApiToken[] } | { status: 'error'; message: string };

export function useApiTokens() {
  const [state, setState] = useState<ApiTokensState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const { tokens } = await call(api.GET('/api/user/tokens'), 'Could not load your API tokens');
      setState({ status: 'ready', tokens });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  /** A new token: answered with its secret, which is shown only now. */
  const create = async (body: { name: string; scopes: ApiTokenScope[]; expiresInDays?: number }): Promise<CreatedApiToken> => {
    const made = await call(api.POST('/api/user/tokens', { body }), 'Could not create the token');
    const { token: _secret, ...listed } = made;
    setState((s) => (s.status === 'ready' ? { ...s, tokens: [...s.tokens, listed] } : s));
    return made;
  };

  const revoke = async (id: string): Promise<void> => {
    await call(api.DELETE('/api/user/tokens/{id}', { params: { path: { id } } }), 'Could not revoke the token');
    setState((s) => (s.status === 'ready' ? { ...s, tokens: s.tokens.filter((t) => t.id !== id) } : s));
  };

  return { state, reload: load, create, revoke };
}
