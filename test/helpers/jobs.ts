// Waiting for a generation job (GET /api/generations/{id}) to reach a state, reading it again and again: bounded by a
// number of reads, never by a clock. `pauseMs` between reads (0: the next turn of the event loop).
import { expect } from 'vitest';
import type { HttpClient, Sent } from './http-client.js';

/** Whether a job has ended: succeeded, failed or canceled. */
export const settled = (job: Record<string, unknown>): boolean => ['succeeded', 'failed', 'canceled'].includes(job.status as string);

/** The job (as the route answered it) once `done` holds for it (default: once it has ended); fails after `reads` reads. */
export async function untilJob(
  client: HttpClient,
  id: string,
  done: (job: Record<string, unknown>) => boolean = settled,
  { reads = 400, pauseMs = 0 }: { reads?: number; pauseMs?: number } = {},
): Promise<Sent['json']> {
  for (let i = 0; i < reads; i++) {
    const read = await client.get(`/api/generations/${id}`);
    expect(read.status, read.text).toBe(200);
    if (done(read.json)) return read.json;
    await new Promise((resolve) => (pauseMs > 0 ? setTimeout(resolve, pauseMs) : setImmediate(resolve)));
  }
  throw new Error(`job ${id} never reached the state`);
}
