// Run ▶ (issue 35 point 6): on every runnable node, the node's Run — the node after whatever it depends on that is
// stale, with its estimate: "Run · $0.04", "Run · cached" — and beside it a small menu: Run from here (the node and
// everything after it) and, for a kind with a seed, Run again (a new seed, so a new variant). In the run bar over
// the canvas, Run all with the total estimate, one Cancel for the current run, and Runs (the run panel). Every control
// is a button or a menu item (components/more-menu.tsx: arrows move, Escape closes).
import { useNodesData } from '@xyflow/react';
import { kindOf } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { documentRun, isFinished, isRunnableType, nodePriceBefore, nodeRunEstimate, runLabel, totalEstimate } from '../canvas/runs';
import { documentJob } from '../canvas/job';
import { useRunsContext, type Runs } from '../hooks/use-runs';
import { MoreMenu, type MenuAction } from './more-menu';
import './runs.css';

/** Whether nodes of this type have a seed (Run again draws a new one): their kind says it is seeded. */
export const hasSeed = (type: string | undefined): boolean => kindOf(type)?.seeded === true;

/** Whether the node's run goes on (or, in none, it has a job now): its Run waits. */
export function nodeBusy(data: Record<string, unknown> | undefined): boolean {
  if (!data) return false;
  const run = documentRun(data.run);
  return run !== undefined ? !isFinished(run.status) : documentJob(data.job) !== undefined;
}

/** The menu items of a node's run (the node's ▾ menu; the canvas's node menu, so a long press on a phone has them). */
export function nodeRunActions(runs: Runs, nodeId: string, type: string | undefined, opts: { withRun: boolean }): MenuAction[] {
  return [
    ...(opts.withRun ? [{ label: 'Run', onSelect: () => runs.start('node', [nodeId]) }] : []),
    { label: 'Run from here', onSelect: () => runs.start('downstream', [nodeId]), title: 'Run this node and everything after it' },
    ...(hasSeed(type) ? [{ label: 'Run again', onSelect: () => runs.runAgain(nodeId), title: 'Draw a new seed and run it: a new variant' }] : []),
  ];
}

export function NodeRunButton({ nodeId, type }: { nodeId: string; type: string | undefined }) {
  const runs = useRunsContext();
  const data = useNodesData<CanvasNode>(nodeId)?.data;
  if (!runs || !isRunnableType(type)) return null;
  const busy = nodeBusy(data);
  const label = runLabel(nodeRunEstimate(runs.estimate, nodeId, runs.edges));
  const own = nodePriceBefore(runs.estimate, nodeId);
  return (
    <div className="run-controls nodrag nokey" role="group" aria-label="Run this node">
      <button type="button" className="button small primary run-button" onClick={() => runs.start('node', [nodeId])} disabled={runs.starting || busy} title={`Run this node, after whatever it depends on that is out of date${own ? ` (this node alone: ${own})` : ''}`}>
        <span aria-hidden="true">▶ </span>
        {label}
      </button>
      <MoreMenu
        label="Run options"
        className="run-options"
        actions={nodeRunActions(runs, nodeId, type, { withRun: false }).map((a) => ({ ...a, disabled: runs.starting || busy }))}
        trigger={
          <>
            <span aria-hidden="true">▾</span>
            <span className="visually-hidden">Run options</span>
          </>
        }
      />
    </div>
  );
}

/**
 * The canvas's run bar (top right, over the canvas: the editor's toolbar has no room left on a laptop's one row):
 * Run all (with the total estimate), Cancel run while a run goes, and Runs (the run panel).
 */
export function RunBar() {
  const runs = useRunsContext();
  if (!runs) return null;
  const running = runs.current?.status === 'running';
  return (
    <div className="run-bar" role="toolbar" aria-label="Runs">
      <button type="button" className="button small primary run-all" onClick={() => runs.start('all')} disabled={runs.starting} title="Run every node that runs (what has not changed comes from the cache)">
        <span aria-hidden="true">▶ </span>
        {runLabel(totalEstimate(runs.estimate), 'Run all')}
      </button>
      {running && (
        <button type="button" className="button small" onClick={runs.cancel} disabled={runs.canceling} aria-label="Cancel run" title="Stop the whole run">
          {runs.canceling ? 'Canceling…' : 'Cancel run'}
        </button>
      )}
      <button type="button" className="button small ghost" aria-expanded={runs.panelOpen} onClick={() => runs.setPanelOpen(!runs.panelOpen)} title="The current run’s jobs, states and prices">
        Runs
      </button>
    </div>
  );
}
