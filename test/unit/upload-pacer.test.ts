// How the web client paces uploads (web/src/canvas/upload-pacer.ts): a few at once in the order they were added,
// and a file refused for the upload limit back in its place, nothing sent until the service's Retry-After (or a
// doubling pause without one), then on by itself. The tray is a list typed against the pacer's port (the web
// client's UploadTray, whose module the service's type check does not compile); the clock is vitest's (no waiting).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UploadPacer, type PacedEntry, type PacedTray } from '../../web/src/canvas/upload-pacer.js';

/** A tray of files named `1.png`… (their ids) and a pacer whose sends are settled by the test (`finish(name)`). */
function setUp(n: number) {
  let entries: PacedEntry[] = Array.from({ length: n }, (_, i) => ({ id: `${i + 1}.png`, state: 'uploading' }));
  const tray: PacedTray = {
    get: () => entries,
    update: (id, patch) => {
      entries = entries.map((e) => (e.id === id ? { ...e, ...patch } : e));
    },
  };
  const started: string[] = [];
  const settle = new Map<string, () => void>();
  const pacer = new UploadPacer(tray, (id) => {
    started.push(id);
    return new Promise<void>((resolve) => settle.set(id, resolve));
  });
  pacer.open();
  for (const { id } of entries) pacer.enqueue(id);
  /** The send of `file` is done: stored (gone from the tray), or refused for the limit. */
  const finish = async (file: string, limited?: { retryAfterSeconds?: number }) => {
    if (limited) pacer.limited(file, limited.retryAfterSeconds);
    else {
      pacer.sent();
      entries = entries.filter((e) => e.id !== file);
    }
    settle.get(file)!();
    await vi.advanceTimersByTimeAsync(0); // the send's promise settles
  };
  const states = () => entries.map((e) => `${e.id}:${e.state}`);
  return { tray, pacer, started, finish, states };
}

describe('upload pacer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends three at once in the order the files were added, the next as soon as one is done', async () => {
    const { started, finish, states } = setUp(5);
    expect(started).toEqual(['1.png', '2.png', '3.png']);
    expect(states()).toEqual(['1.png:uploading', '2.png:uploading', '3.png:uploading', '4.png:queued', '5.png:queued']);
    await finish('2.png');
    expect(started).toEqual(['1.png', '2.png', '3.png', '4.png']);
    await finish('1.png');
    await finish('3.png');
    await finish('4.png');
    await finish('5.png');
    expect(states()).toEqual([]);
  });

  it('puts a file refused for the limit back in its place and sends nothing until Retry-After has passed, then goes on', async () => {
    const { tray, started, finish, states } = setUp(5);
    const until = Date.now() + 10_000;
    await finish('1.png', { retryAfterSeconds: 10 });
    expect(started).toEqual(['1.png', '2.png', '3.png']);
    expect(states()).toEqual(['1.png:queued', '2.png:uploading', '3.png:uploading', '4.png:queued', '5.png:queued']);
    // Every file still queued says until when it waits (the tray's "Waiting for the upload limit" line).
    expect(tray.get().filter((e) => e.state === 'queued').map((e) => e.retryAt)).toEqual([until, until, until]);
    await finish('2.png');
    await finish('3.png');
    await vi.advanceTimersByTimeAsync(9_999);
    expect(started).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    // The same file again, first, and the queue after it; none waits any longer.
    expect(started.slice(3)).toEqual(['1.png', '4.png', '5.png']);
    expect(tray.get().every((e) => e.retryAt === undefined)).toBe(true);
    for (const file of ['1.png', '4.png', '5.png']) await finish(file);
    expect(states()).toEqual([]);
  });

  it('without a Retry-After pauses 2 s, then 4 s for a second refusal in a row, and never drops the file', async () => {
    const { started, finish, states } = setUp(1);
    await finish('1.png', {});
    await vi.advanceTimersByTimeAsync(1_999);
    expect(started).toEqual(['1.png']);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(['1.png', '1.png']);
    await finish('1.png', {});
    await vi.advanceTimersByTimeAsync(3_999);
    expect(started).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(3);
    await finish('1.png');
    expect(states()).toEqual([]);
  });

  it('sends nothing more once closed, and goes on when opened again', async () => {
    const { pacer, started, finish } = setUp(4);
    pacer.close();
    await finish('1.png');
    expect(started).toEqual(['1.png', '2.png', '3.png']);
    pacer.open();
    expect(started).toEqual(['1.png', '2.png', '3.png', '4.png']);
  });
});
