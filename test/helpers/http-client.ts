// A small HTTP client that behaves like a browser where it matters for sign-in: a cookie jar (tough-cookie,
// paths and expiry honoured) and redirects followed by hand so every hop's cookies are kept.
import { CookieJar } from 'tough-cookie';

export interface Sent {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  url: string;
}

export class HttpClient {
  /** A shared jar makes two clients one browser (e.g. against two instances on the same host). */
  constructor(
    readonly baseUrl: string,
    readonly jar = new CookieJar(),
  ) {}

  async request(path: string, init: { method?: string; json?: unknown; form?: Record<string, string>; body?: BodyInit; headers?: Record<string, string>; follow?: boolean } = {}): Promise<Sent> {
    let url = new URL(path, this.baseUrl).toString();
    let method = init.method ?? (init.json !== undefined || init.form ? 'POST' : 'GET');
    const headers: Record<string, string> = { ...init.headers };
    let body: BodyInit | undefined = init.body;
    if (init.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof init.json === 'string' ? init.json : JSON.stringify(init.json);
    } else if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    for (let hop = 0; hop < 20; hop++) {
      const cookie = await this.jar.getCookieString(url);
      const res = await fetch(url, { method, body, redirect: 'manual', headers: { ...headers, ...(cookie ? { cookie } : {}) } });
      for (const c of res.headers.getSetCookie()) await this.jar.setCookie(c, url, { ignoreError: true });
      const location = res.headers.get('location');
      if (init.follow !== false && location && res.status >= 300 && res.status < 400) {
        url = new URL(location, url).toString();
        if (res.status !== 307 && res.status !== 308) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        await res.arrayBuffer();
        continue;
      }
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json, url };
    }
    throw new Error('too many redirects');
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request(path, { headers });
  }
  post(path: string, json: unknown, headers?: Record<string, string>) {
    return this.request(path, { method: 'POST', json, headers });
  }

  async cookie(name: string): Promise<string | undefined> {
    return (await this.jar.getCookies(this.baseUrl)).find((c) => c.key === name)?.value;
  }
}

/**
 * Sign in through the bundled identity provider exactly as a browser does: the /login form (CSRF token),
 * the provider's form (email, name), and the redirects back. Returns the page it lands on.
 */
export async function signIn(client: HttpClient, email: string, name: string): Promise<Sent> {
  const login = await client.get('/login');
  const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(login.text)?.[1];
  if (!csrfToken) throw new Error(`no CSRF token on /login (status ${login.status})`);
  const form = await client.request('/api/auth/signin/oauth', { form: { csrfToken, callbackUrl: '/projects' } });
  const action = /<form method="post" action="([^"]+)"/.exec(form.text)?.[1];
  if (!action) throw new Error(`no identity provider form (status ${form.status} at ${form.url}): ${form.text.slice(0, 300)}`);
  // The provider's own address: the form's action is relative to its page, which may be on another host.
  return client.request(new URL(action, form.url).toString(), { form: { email, name } });
}

/** `POST /api/upload` of one file as a browser's form sends it (multipart/form-data, the field `file`). */
export function uploadFile(client: HttpClient, data: Uint8Array, opts: { filename?: string; type?: string } = {}): Promise<Sent> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: opts.type ?? 'image/png' }), opts.filename ?? 'image.png');
  return client.request('/api/upload', { method: 'POST', body: form });
}
