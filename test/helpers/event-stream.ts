// A job event stream (GET /api/generations/events) opened as a script would, with the session cookie of a signed-in
// client or an API token: its status, the events it got, and waits for its `closed` event and for its end.
import { createSseParser, type SseEvent } from '../../client/sse.js';
import type { HttpClient } from './http-client.js';

export interface OpenStream {
  status: number;
  events: SseEvent[];
  /** The reason of the stream's last `closed` event, once the stream has ended (undefined: it ended without one). */
  ended: Promise<string | undefined>;
  /** Whether it has ended. */
  done(): boolean;
  close(): void;
}

export async function openEventStream(baseUrl: string, as: { client: HttpClient } | { token: string }): Promise<OpenStream> {
  const headers: Record<string, string> = 'token' in as ? { authorization: `Bearer ${as.token}` } : { cookie: await as.client.jar.getCookieString(baseUrl) };
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/generations/events`, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  let finished = false;
  const parser = createSseParser({ onEvent: (e) => events.push(e) });
  const ended = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(chunk);
    } catch {
      // aborted by close(), or cut off
    }
    finished = true;
    const last = events.at(-1);
    return last?.event === 'closed' ? (JSON.parse(last.data) as { reason: string }).reason : undefined;
  })();
  return { status: res.status, events, ended, done: () => finished, close: () => abort.abort() };
}
