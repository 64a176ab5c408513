// Auth.js routes under /api/auth (they are not part of our OpenAPI document; Auth.js defines them). Sign-in
// and sign-out are real form posts: Auth.js answers them with redirects the browser must follow itself.

/** The body of GET /api/auth/session when signed in (the service adds the user's id). */
export interface AuthSession {
  user: { id: string; name?: string | null; email?: string | null; image?: string | null };
  expires: string;
}

async function getJson(path: string): Promise<unknown> {
  const res = await fetch(path, { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
  return res.json();
}

/** The current session, or null when signed out (status `unauthenticated`). */
export async function fetchSession(): Promise<AuthSession | null> {
  const body = (await getJson('/api/auth/session')) as AuthSession | null;
  return body?.user?.id ? body : null;
}

export async function fetchCsrfToken(): Promise<string> {
  const { csrfToken } = (await getJson('/api/auth/csrf')) as { csrfToken: string };
  return csrfToken;
}

/** A full-page form POST (a navigation, not a fetch). */
export function submitForm(action: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = action;
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}

/** Signs out and lands on `/`. */
export async function signOut(): Promise<void> {
  submitForm('/api/auth/signout', { csrfToken: await fetchCsrfToken(), callbackUrl: '/' });
}

/** Ends every session of the user, on every device and this one (DELETE /api/user/sessions), and lands on `/`. */
export async function signOutEverywhere(): Promise<void> {
  const res = await fetch('/api/user/sessions', { method: 'DELETE', headers: { accept: 'application/json' } });
  if (!res.ok && res.status !== 401) throw new Error(`/api/user/sessions answered ${res.status}`);
  window.location.assign('/');
}
