// Waiting for a generation job (GET /api/generations/{id}) to reach a state: the job is read again each time its
// user's event stream (GET /api/generations/events) tells of a change to it, so the wait follows the job's own
// events, never a clock or a number of reads. A job that never gets there fails by the test's timeout.
import { expect } from 'vitest';
import { createSseParser } from '../../client/sse.js';
import type { HttpClient, Sent } from './http-client.js';

/** Whether a job has ended: succeeded, failed or canceled. */
export const settled = (job: Record<string, unknown>): boolean => ['succeeded', 'failed', 'canceled'].includes(job.status as string);

/** The user's open event stream: how many events each job has had so far, and a wait for the next one. */
async function jobEvents(client: HttpClient) {
  const cookie = await client.jar.getCookieString(client.baseUrl);
  const abort = new AbortController();
  const res = await fetch(new URL('/api/generations/events', client.baseUrl), { headers: { cookie }, signal: abort.signal });
  expect(res.status, 'GET /api/generations/events').toBe(200);
  const counts = new Map<string, number>();
  const wakers = new Set<() => void>();
  let ended: Error | undefined;
  const wakeAll = () => {
    for (const wake of [...wakers]) wake();
  };
  const parser = createSseParser({
    onEvent(e) {
      if (e.event !== 'job') return;
      const job = JSON.parse(e.data) as { id: string };
      counts.set(job.id, (counts.get(job.id) ?? 0) + 1);
      wakeAll();
    },
  });
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(chunk);
      ended = new Error('the event stream ended');
    } catch (err) {
      ended = abort.signal.aborted ? new Error('closed') : (err as Error);
    }
    wakeAll();
  })();
  return {
    count: (id: string) => counts.get(id) ?? 0,
    /** Resolves once job `id` has had more than `seen` events; rejects if the stream ends first. */
    after(id: string, seen: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const wake = () => {
          if ((counts.get(id) ?? 0) > seen) resolve();
          else if (ended) reject(ended);
          else return;
          wakers.delete(wake);
        };
        wakers.add(wake);
        wake();
      });
    },
    close: () => abort.abort(),
  };
}

/** The job (as the route answers it) once `done` holds for it (default: once it has ended). */
export async function untilJob(client: HttpClient, id: string, done: (job: Record<string, unknown>) => boolean = settled): Promise<Sent['json']> {
  const events = await jobEvents(client);
  try {
    for (;;) {
      // Counted before the read: a change that lands while it is under way wakes the next wait at once.
      const seen = events.count(id);
      const read = await client.get(`/api/generations/${id}`);
      expect(read.status, read.text).toBe(200);
      if (done(read.json)) return read.json;
      await events.after(id, seen);
    }
  } finally {
    events.close();
  }
}
