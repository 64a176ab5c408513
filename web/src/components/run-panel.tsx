// The run panel (issue 35 point 6): the current (or latest) run of the project — this tab's or anyone's — with its
// status, every job (the node's name, its state, cached, its cost) and the total: the estimate while it goes, what it
// cost once it ended; the last refusal of a start in the service's words, naming the nodes; one Cancel for the whole
// run. Opened from the toolbar's Runs and when a run starts here; Escape or Close closes it.
import { useEffect, useId, useMemo, useRef } from 'react';
import type { CanvasNode } from '../canvas/model';
import { nodeNames } from '../canvas/names';
import { jobCostText, jobStatusText, runSummary } from '../canvas/runs';
import { useRunsContext } from '../hooks/use-runs';
import './runs.css';

export function RunPanel({ nodes }: { nodes: CanvasNode[] }) {
  const runs = useRunsContext();
  const titleId = useId();
  const panel = useRef<HTMLElement>(null);
  const names = useMemo(() => nodeNames(nodes), [nodes]);
  const open = runs?.panelOpen === true;
  useEffect(() => {
    if (open) panel.current?.focus();
  }, [open]);
  if (!runs || !open) return null;
  const { current: run, problem } = runs;
  const nameOf = (id: string) => names.get(id) ?? 'A deleted node';
  const summary = run && runSummary(run);
  const close = () => runs.setPanelOpen(false);
  return (
    <aside
      ref={panel}
      className="run-panel nokey"
      aria-labelledby={titleId}
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          close();
        }
      }}
    >
      <header className="run-panel-head">
        <h2 id={titleId}>Run</h2>
        <button type="button" className="icon-button" aria-label="Close run panel" title="Close (Escape)" onClick={close}>
          ×
        </button>
      </header>
      {problem && (
        <div className="node-error small" role="alert">
          <p>{problem.error}</p>
          {problem.nodeIds.length > 0 && <p>Nodes: {problem.nodeIds.map(nameOf).join(', ')}</p>}
        </div>
      )}
      {runs.starting && (
        <p className="muted small" role="status">
          Starting the run…
        </p>
      )}
      {!run && !problem && !runs.starting && <p className="muted small">No run yet: Run a node, a selection or everything.</p>}
      {run && summary && (
        <>
          <p className="run-panel-status" role="status" data-status={run.status}>
            {summary.status}
          </p>
          <p className="small run-panel-total">{summary.total}</p>
          {run.status === 'running' && (
            <button type="button" className="button small ghost" onClick={runs.cancel} disabled={runs.canceling} aria-label="Cancel run">
              {runs.canceling ? 'Canceling…' : 'Cancel run'}
            </button>
          )}
          <table className="run-jobs">
            <caption className="visually-hidden">Jobs of the run</caption>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">State</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {run.jobs.map((job) => (
                <tr key={`${job.nodeId}:${job.instance}`} data-status={job.status}>
                  <th scope="row">
                    {nameOf(job.nodeId)}
                    {run.jobs.some((j) => j.nodeId === job.nodeId && j.instance !== job.instance) ? ` #${job.instance + 1}` : ''}
                  </th>
                  <td>{jobStatusText(job)}</td>
                  <td>{jobCostText(job, run.estimate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </aside>
  );
}
