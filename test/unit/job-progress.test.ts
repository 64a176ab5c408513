// A running job's progress as its node shows it (web/src/canvas/job.ts): what the document's `data.job.progress`
// is read as (anyone can write the document, so only well-formed fields count), and the words and bar value the
// node draws from it — the step bar, which no fake provider drives through the browser suite, is covered here.
import { describe, expect, it } from 'vitest';
import { documentJob, documentProgress, ordinal, progressDisplay } from '../../web/src/canvas/job.js';

const running = { id: 'j1', status: 'running', queuePosition: null, queuedAt: '2025-01-01T00:00:00.000Z', startedAt: '2025-01-01T00:00:01.000Z' };

describe('documentProgress', () => {
  it('keeps the service’s fields', () => {
    expect(documentProgress({ queuePosition: 2 })).toEqual({ queuePosition: 2 });
    expect(documentProgress({ step: { done: 3, total: 20 } })).toEqual({ step: { done: 3, total: 20 } });
    expect(documentProgress({ step: { done: 0, total: 1 }, message: 'step 0/1 warming up' })).toEqual({ step: { done: 0, total: 1 }, message: 'step 0/1 warming up' });
  });

  it('drops what is malformed, field by field, and is nothing when no field is left', () => {
    for (const value of [null, undefined, 'running', 3, [], { queuePosition: 0 }, { queuePosition: 1.5 }, { queuePosition: '2' }, { message: '   ' }, { message: 7 }]) {
      expect(documentProgress(value), JSON.stringify(value)).toBeUndefined();
    }
    for (const step of [null, [3, 20], { done: 3 }, { done: 21, total: 20 }, { done: -1, total: 20 }, { done: 3, total: 0 }, { done: 1.5, total: 2 }, { done: '3', total: '20' }, { done: Infinity, total: Infinity }]) {
      expect(documentProgress({ step, message: 'ok' }), JSON.stringify(step)).toEqual({ message: 'ok' });
    }
    expect(documentProgress({ queuePosition: -1, step: { done: 2, total: 4 } })).toEqual({ step: { done: 2, total: 4 } });
  });

  it('keeps a preview only as a small raster data URL', () => {
    const webp = 'data:image/webp;base64,UklGRg==';
    expect(documentProgress({ message: 'Preview 1 of 2', preview: webp })).toEqual({ message: 'Preview 1 of 2', preview: webp });
    for (const preview of ['https://example.com/x.png', 'data:image/svg+xml;base64,PHN2Zz4=', 'data:image/webp;base64,<script>', `data:image/png;base64,${'A'.repeat(300_000)}`, 7]) {
      expect(documentProgress({ message: 'm', preview }), String(preview).slice(0, 40)).toEqual({ message: 'm' });
    }
  });

  it('keeps a log line on one line, bounded', () => {
    expect(documentProgress({ message: '  loading\n  weights\t done ' })).toEqual({ message: 'loading weights done' });
    const long = documentProgress({ message: 'x'.repeat(10_000) })!.message!;
    expect(long).toHaveLength(500);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('documentJob', () => {
  it('carries a running job’s progress, and no queued job’s', () => {
    expect(documentJob({ ...running, progress: { queuePosition: 1, message: 'hi' } })?.progress).toEqual({ queuePosition: 1, message: 'hi' });
    expect(documentJob({ ...running, status: 'queued', queuePosition: 2, startedAt: null, progress: { queuePosition: 1 } })).not.toHaveProperty('progress');
  });

  it('is still the job when its progress is malformed', () => {
    const job = documentJob({ ...running, progress: { step: 'half' } });
    expect(job).toMatchObject({ id: 'j1', status: 'running' });
    expect(job).not.toHaveProperty('progress');
    expect(documentJob({ ...running, progress: 'half' })).not.toHaveProperty('progress');
  });
});

describe('progressDisplay', () => {
  it('shows steps as a bar with words', () => {
    expect(progressDisplay({ step: { done: 3, total: 20 } })).toEqual({ step: { value: 0.15, text: 'Step 3 of 20' } });
    expect(progressDisplay({ step: { done: 20, total: 20 } }).step).toEqual({ value: 1, text: 'Step 20 of 20' });
  });

  it('says where the job waits in the provider’s queue: next, or its place in line', () => {
    expect(progressDisplay({ queuePosition: 1 })).toEqual({ queue: 'Waiting at the provider: next' });
    expect(progressDisplay({ queuePosition: 2 }).queue).toBe('Waiting at the provider: 2nd in line');
    expect(progressDisplay({ queuePosition: 13 }).queue).toBe('Waiting at the provider: 13th in line');
  });

  it('passes the log line, and shows every field there is', () => {
    expect(progressDisplay({ message: 'step 3/20 sampling' })).toEqual({ message: 'step 3/20 sampling' });
    expect(progressDisplay({ queuePosition: 3, step: { done: 1, total: 4 }, message: 'm' })).toEqual({
      step: { value: 0.25, text: 'Step 1 of 4' },
      queue: 'Waiting at the provider: 3rd in line',
      message: 'm',
    });
  });
});

it('ordinal', () => {
  const cases: Array<[number, string]> = [[1, '1st'], [2, '2nd'], [3, '3rd'], [4, '4th'], [11, '11th'], [12, '12th'], [13, '13th'], [21, '21st'], [22, '22nd'], [101, '101st'], [111, '111th'], [112, '112th']];
  for (const [n, word] of cases) expect(ordinal(n)).toBe(word);
});
