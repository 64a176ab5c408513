// How a generation node reads its last run (web/src/canvas/job.ts): the cancel the runner writes into the node
// (its error `Canceled`, or `data.runState`), the node's job a refused start names (409 `{ error, jobId }`), and what an idle node shows —
// this tab's own answer first, then *Canceled* over an earlier run's error, then the document's error.
import { describe, expect, it } from 'vitest';
import { documentCanceled, runningJobOf, runOutcome } from '../../web/src/canvas/job.js';

const JOB = 'job_0b7c1a4e-3f7e-4a43-9d0e-1f2a3b4c5d6e';

describe('documentCanceled', () => {
  it('reads the runner’s canceled state: its error `Canceled`, or a run state as a word or an object', () => {
    expect(documentCanceled({ error: 'Canceled' })).toBe(true);
    expect(documentCanceled({ error: { error: 'Canceled' } })).toBe(true);
    expect(documentCanceled({ runState: 'canceled' })).toBe(true);
    expect(documentCanceled({ runState: { status: 'canceled', jobId: JOB } })).toBe(true);
  });

  it('is false for anything else anyone may have written', () => {
    for (const runState of [undefined, null, 'failed', 'Canceled', { status: 'succeeded' }, ['canceled'], 1]) expect(documentCanceled({ runState })).toBe(false);
    expect(documentCanceled({})).toBe(false);
    for (const error of ['Failed to generate image', 'canceled', 'Canceled by the user', { error: 'Failed' }]) expect(documentCanceled({ error })).toBe(false);
  });
});

describe('runningJobOf', () => {
  it('names the node’s job a 409 names, with its state when the body says it', () => {
    expect(runningJobOf({ error: 'Node is busy', jobId: JOB })).toEqual({ id: JOB, status: null, queuePosition: null });
    expect(runningJobOf({ error: 'x', jobId: JOB, status: 'queued', queuePosition: 2 })).toEqual({ id: JOB, status: 'queued', queuePosition: 2 });
    expect(runningJobOf({ error: 'x', jobId: JOB, status: 'running', queuePosition: 2 })).toEqual({ id: JOB, status: 'running', queuePosition: null });
  });

  it('names none for another 409 or a body that is not the service’s', () => {
    for (const body of [undefined, null, 'busy', [JOB], { error: 'Job already finished' }, { jobId: 42 }, { jobId: '' }, { jobId: 'not a job' }, { jobId: `job_${'a'.repeat(101)}` }]) {
      expect(runningJobOf(body)).toBeUndefined();
    }
    expect(runningJobOf({ jobId: JOB, status: 'succeeded', queuePosition: 0 })).toEqual({ id: JOB, status: null, queuePosition: null });
  });
});

describe('runOutcome', () => {
  const quota = { error: 'Upgrade required', status: 402 };

  it('shows this tab’s own answer first, even over a cancel or while the node runs again', () => {
    expect(runOutcome({ busy: false, ownError: quota, ownCanceled: true, data: { error: 'old' } })).toBe(quota);
    expect(runOutcome({ busy: true, ownError: quota, ownCanceled: false, data: {} })).toBe(quota);
  });

  it('says Canceled over the error an earlier run left in the document', () => {
    expect(runOutcome({ busy: false, ownError: undefined, ownCanceled: true, data: { error: 'Failed to generate image' } })).toBe('canceled');
    expect(runOutcome({ busy: false, ownError: undefined, ownCanceled: false, data: { runState: 'canceled', error: 'Failed to generate image' } })).toBe('canceled');
    // The runner's word for it is a state, not an error.
    expect(runOutcome({ busy: false, ownError: undefined, ownCanceled: false, data: { error: 'Canceled' } })).toBe('canceled');
  });

  it('shows the document’s error otherwise, and nothing while the node runs', () => {
    expect(runOutcome({ busy: false, ownError: undefined, ownCanceled: false, data: { error: 'Invalid image: x' } })).toEqual({ error: 'Invalid image: x' });
    expect(runOutcome({ busy: false, ownError: undefined, ownCanceled: false, data: {} })).toBeUndefined();
    expect(runOutcome({ busy: true, ownError: undefined, ownCanceled: true, data: { runState: 'canceled', error: 'x' } })).toBeUndefined();
  });
});
