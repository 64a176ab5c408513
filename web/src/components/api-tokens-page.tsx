// /settings/tokens: the user's personal API tokens (docs/api.md "API tokens"). Create one (name, scopes, optional
// expiry): its secret is shown once, with Copy and a warning (the service keeps only a hash). The list shows each
// token's prefix, scopes, dates and last use; Revoke asks for confirmation first. Below them, Sign out of all devices.
import { useId, useRef, useState, type FormEvent } from 'react';
import type { ApiToken, ApiTokenScope, CreatedApiToken } from '../api/client';
import { useAction } from '../hooks/use-action';
import { useApiTokens } from '../hooks/use-api-tokens';
import { useDocumentTitle } from '../hooks/use-document-title';
import { AppHeader } from './app-header';
import { ConfirmDialog } from './confirm-dialog';
import { LoadError } from './load-error';
import { SignOutEverywhere } from './sign-out-everywhere';

const SCOPES: Array<{ scope: ApiTokenScope; label: string; hint: string }> = [
  { scope: 'read', label: 'Read', hint: 'list and read projects, canvases and generations' },
  { scope: 'write', label: 'Write', hint: 'create, change and delete projects and canvases, upload images' },
  { scope: 'generate', label: 'Generate', hint: 'generate images' },
  { scope: 'billing', label: 'Billing', hint: 'start a checkout of the Pro plan, open the customer portal' },
];

const when = (iso: string | null, never: string) => (iso ? new Date(iso).toLocaleString() : never);

export function ApiTokensPage() {
  useDocumentTitle('API tokens');
  const tokens = useApiTokens();
  const [made, setMade] = useState<CreatedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const action = useAction<'revoke'>();

  const onRevoke = async () => {
    if (!revoking) return;
    const done = await action.run('revoke', () => tokens.revoke(revoking.id));
    if (done) {
      if (made?.id === revoking.id) setMade(null);
      setRevoking(null);
    }
  };

  const { state } = tokens;
  return (
    <>
      <AppHeader />
      <main className="page">
        <div className="page-heading">
          <h1>API tokens</h1>
        </div>
        <p className="muted">
          Scripts send a token as <code>Authorization: Bearer &lt;token&gt;</code> and then act as you, within the token’s scopes. A token cannot
          create or revoke tokens. Keep tokens secret, like a password.
        </p>

        {made && <NewTokenSecret token={made} onDismiss={() => setMade(null)} />}
        <CreateTokenForm onCreate={async (body) => setMade(await tokens.create(body))} />

        <section aria-labelledby="api-tokens-list">
          <h2 id="api-tokens-list">Your tokens</h2>
          {state.status === 'loading' && (
            <p role="status" className="muted">
              <span className="spinner small" aria-hidden="true" /> Loading your tokens…
            </p>
          )}
          {state.status === 'error' && <LoadError className="notice error" message={state.message} onRetry={() => void tokens.reload()} />}
          {state.status === 'ready' && state.tokens.length === 0 && <p className="muted">No tokens yet.</p>}
          {state.status === 'ready' && state.tokens.length > 0 && (
            <ul className="project-list token-list" aria-label="API tokens">
              {state.tokens.map((token) => (
                <li key={token.id} className="project-item token-item">
                  <div className="token-main">
                    <strong className="token-name">{token.name}</strong> <code className="muted small">{token.prefix}…</code>
                    <div className="muted small">
                      {token.scopes.join(', ')} · created {when(token.createdAt, '')} · {token.expiresAt ? `expires ${when(token.expiresAt, '')}` : 'never expires'} ·{' '}
                      {token.lastUsedAt ? `last used ${when(token.lastUsedAt, '')}` : 'never used'}
                    </div>
                  </div>
                  <button type="button" className="button small ghost danger" aria-label={`Revoke ${token.name}`} onClick={() => setRevoking(token)}>
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )}
          {action.error && (
            <p className="error small" role="alert">
              {action.error}
            </p>
          )}
        </section>
        <SignOutEverywhere />
      </main>
      {revoking && (
        <ConfirmDialog title={`Revoke “${revoking.name}”?`} confirmLabel="Revoke" busy={action.busy === 'revoke'} onConfirm={() => void onRevoke()} onCancel={() => setRevoking(null)}>
          Scripts using this token stop working at once. This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}

function CreateTokenForm({ onCreate }: { onCreate: (body: { name: string; scopes: ApiTokenScope[]; expiresInDays?: number }) => Promise<void> }) {
  const nameId = useId();
  const daysId = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiTokenScope[]>(['read']);
  const [days, setDays] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const toggle = (scope: ApiTokenScope, on: boolean) => setScopes((s) => (on ? SCOPES.map((x) => x.scope).filter((x) => x === scope || s.includes(x)) : s.filter((x) => x !== scope)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onCreate({ name: name.trim(), scopes, ...(days.trim() ? { expiresInDays: Number(days) } : {}) });
      setName('');
      setDays('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card token-form" onSubmit={(e) => void submit(e)} noValidate aria-label="New API token">
      <h2>New token</h2>
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} className="input" value={name} maxLength={100} placeholder="e.g. Nightly export" onChange={(e) => setName(e.target.value)} />
      </div>
      <fieldset className="token-scopes">
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label, hint }) => (
          <label key={scope} className="token-scope">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
            <span>
              {label} <span className="muted small">— {hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={daysId}>Expires after (days, empty: never)</label>
        <input id={daysId} className="input token-days" type="number" min={1} step={1} inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
      </div>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="button primary" disabled={busy || name.trim() === '' || scopes.length === 0}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

/** The secret of the token just made: shown once, with Copy. */
function NewTokenSecret({ token, onDismiss }: { token: CreatedApiToken; onDismiss: () => void }) {
  const secretId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [note, setNote] = useState<string | null>(null);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setNote('Token copied');
    } catch {
      input.current?.select();
      setNote('Select the token and copy it (Ctrl+C)');
    }
  };

  return (
    <section className="notice token-secret" aria-labelledby={`${secretId}-title`}>
      <h2 id={`${secretId}-title`}>Token “{token.name}” created</h2>
      <p role="alert">Copy it now: it is shown only once. The service keeps only a hash of it.</p>
      <div className="row share-link">
        <label htmlFor={secretId} className="visually-hidden">
          New token
        </label>
        <input id={secretId} ref={input} className="input" value={token.token} readOnly onFocus={(e) => e.target.select()} />
        <button type="button" className="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="small share-note" role="status">
        {note}
      </p>
      <div className="row">
        <button type="button" className="button ghost" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </section>
  );
}
