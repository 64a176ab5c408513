// /login: a real form POST to Auth.js with its CSRF token; the browser follows the redirects to the
// identity provider and back to /projects. `?error=` codes from Auth.js are shown as sentences.
import { useCallback, useEffect, useState } from 'react';
import { fetchCsrfToken } from '../api/auth';
import { authErrorText } from '../../../src/auth/auth-errors';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useSession } from '../hooks/use-session';
import { navigate, useLocation } from '../router';
import { AppHeader } from './app-header';

export function LoginPage() {
  useDocumentTitle('Sign in');
  const session = useSession();
  const { search } = useLocation();
  const code = search.get('error');
  const [csrfToken, setCsrfToken] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [submitting, setSubmitting] = useState(false);

  const load = useCallback(() => {
    setFailed(false);
    fetchCsrfToken().then(setCsrfToken, () => setFailed(true));
  }, []);
  useEffect(load, [load]);

  useEffect(() => {
    if (session.status === 'authenticated') navigate('/projects', { replace: true });
  }, [session.status]);

  return (
    <>
      <AppHeader signInLink={false} />
      <main className="centered">
        <div className="card">
          <h1>Sign in to Image Canvas</h1>
          {code && (
            <p className="error" role="alert">
              {authErrorText(code)}
            </p>
          )}
          {failed && (
            <p className="error" role="alert">
              Could not reach the server.{' '}
              <button type="button" className="link-button" onClick={load}>
                Try again
              </button>
            </p>
          )}
          <form method="post" action="/api/auth/signin/oauth" onSubmit={() => setSubmitting(true)}>
            <input type="hidden" name="csrfToken" value={csrfToken ?? ''} />
            <input type="hidden" name="callbackUrl" value="/projects" />
            <button type="submit" className="button primary large wide" disabled={!csrfToken || submitting}>
              {submitting ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
          <p className="muted small">You continue at your identity provider and come back here, signed in.</p>
        </div>
      </main>
    </>
  );
}
