// What the editor shows of graph runs (web/src/canvas/runs.ts): a node's badge from the `data.run` and `data.job` the
// service writes (anyone can write the document: only well-formed run states count), prices as people read them,
// and a node's Run estimate — the node and what it depends on — from one estimate of the canvas.
import { describe, expect, it } from 'vitest';
import type { Estimate } from '../../web/src/api/run-types.js';
import { ancestorsOf, descendantsOf, documentRun, formatUsd, jobCostText, newSeed, nodeRunEstimate, runBadge, runLabel, totalEstimate } from '../../web/src/canvas/runs.js';

const run = (fields: Record<string, unknown>) => ({ runId: 'run_1', status: 'succeeded', cached: false, done: 1, total: 1, ...fields });

describe('runBadge', () => {
  it('says each state in words, with its place in the queue, its progress and its reason', () => {
    expect(runBadge({ run: run({ status: 'queued' }), job: { id: 'job_1', status: 'queued', queuePosition: 3 } })?.text).toBe('Queued · 3rd');
    expect(runBadge({ run: run({ status: 'running' }), job: { id: 'job_1', status: 'running', progress: { step: { done: 2, total: 5 } } } })?.text).toBe('Running · 40%');
    expect(runBadge({ run: run({ status: 'waiting' }) })?.text).toBe('Waiting for inputs');
    expect(runBadge({ run: run({}), job: { id: 'job_2', status: 'queued', queuePosition: 1 } })?.text).toBe('Done'); // a job not the run's
    expect(runBadge({ run: run({ status: 'cached', cached: true }) })).toEqual({ tone: 'cached', text: 'Cached', price: 'free' });
    expect(runBadge({ run: run({ costUsd: 0.04 }) })).toEqual({ tone: 'done', text: 'Done', price: '$0.04' });
    expect(runBadge({ run: run({ status: 'failed', reason: 'Prompt not  understood' }) })?.text).toBe('Failed: Prompt not understood');
    expect(runBadge({ run: run({ status: 'skipped', reason: 'Generate 1 failed' }) })?.text).toBe('Skipped: Generate 1 failed');
    expect(runBadge({ run: run({ status: 'running', done: 2, total: 8, estimateUsd: 0.32 }) })).toEqual({ tone: 'active', text: 'Running · 2/8', price: '≈ $0.32' });
  });

  it('is nothing for a node in no run, and ignores run states that are not the service’s shape', () => {
    expect(runBadge({})).toBeUndefined();
    for (const value of [null, 'done', [], { status: 'succeeded' }, { runId: 'run_1', status: 'finished' }, { runId: '', status: 'succeeded' }]) {
      expect(runBadge({ run: value }), JSON.stringify(value)).toBeUndefined();
    }
    expect(documentRun(run({ done: -1, total: 0, costUsd: 'free', reason: 7 }))).toEqual({ runId: 'run_1', status: 'succeeded', cached: false, done: 0, total: 1 });
  });
});

describe('prices and estimates', () => {
  it('formats prices', () => {
    expect([0, 0.004, 0.04, 1.2, null].map(formatUsd)).toEqual(['free', '<$0.01', '$0.04', '$1.20', 'price unknown']);
  });

  const edges = [
    { source: 'in', target: 'a' },
    { source: 'a', target: 'b' },
    { source: 'x', target: 'y' },
  ];
  const estimate: Estimate = {
    totalUsd: 0.08,
    unpriced: 0,
    nodes: [
      { nodeId: 'a', jobs: 1, cached: true, costUsd: 0.04 },
      { nodeId: 'b', jobs: 1, cached: false, costUsd: 0.04 },
      { nodeId: 'y', jobs: 2, cached: false, costUsd: null },
    ],
  };

  it('a node’s Run costs what it and the nodes it depends on cost (cached ones nothing)', () => {
    expect([...ancestorsOf('b', edges)].sort()).toEqual(['a', 'in']);
    expect([...descendantsOf(['in'], edges)].sort()).toEqual(['a', 'b']);
    expect(runLabel(nodeRunEstimate(estimate, 'b', edges))).toBe('Run · $0.04');
    expect(runLabel(nodeRunEstimate(estimate, 'a', edges))).toBe('Run · cached');
    expect(runLabel(nodeRunEstimate(estimate, 'y', edges))).toBe('Run · price unknown');
    expect(runLabel(nodeRunEstimate(undefined, 'b', edges))).toBe('Run');
    expect(runLabel(totalEstimate({ ...estimate, unpriced: 2 }), 'Run all')).toBe('Run all · $0.08 + unpriced');
  });

  it('a job’s price in the panel: its share of the estimate before, what it cost after', () => {
    const job = { nodeId: 'y', status: 'queued' as const, cached: false, costUsd: null };
    expect(jobCostText(job, estimate)).toBe('≈ price unknown');
    expect(jobCostText({ ...job, nodeId: 'b' }, estimate)).toBe('≈ $0.04');
    expect(jobCostText({ ...job, nodeId: 'b', status: 'succeeded', costUsd: 0.05 }, estimate)).toBe('$0.05');
    expect(jobCostText({ ...job, nodeId: 'a', status: 'cached', cached: true, costUsd: 0 }, estimate)).toBe('cached');
    expect(jobCostText({ ...job, nodeId: 'b', status: 'skipped' }, estimate)).toBe('');
  });

  it('Run again draws a seed in range, never the one the node had', () => {
    const draws = [0.5, 0.5, 0.25];
    const seed = newSeed(2 ** 30, () => draws.shift()!);
    expect(seed).toBe(2 ** 29);
    expect(Number.isInteger(newSeed(undefined)) && newSeed(undefined) < 2 ** 31).toBe(true);
  });
});
