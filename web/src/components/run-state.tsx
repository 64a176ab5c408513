// A node's run state, as everyone on the canvas sees it (issue 35 point 1): a compact badge from the node's
// `data.run` and `data.job` (written by the service only, canvas/runs.ts): "Queued · 3rd", "Running · 40%",
// "Cached", "Done", "Failed: reason", "Skipped: reason", "Canceled"; beside it the node's price — the estimate while
// its run goes, what it cost once it has run (before any run, its Run button says its estimate). Shown on read-only
// canvases too; nothing for a node in no run (so a node is as tall as its kind says until it runs).
import { useNodesData } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { runBadge } from '../canvas/runs';
import './runs.css';

export function RunState({ nodeId }: { nodeId: string }) {
  const data = useNodesData<CanvasNode>(nodeId)?.data;
  const badge = data ? runBadge(data) : undefined;
  if (!badge) return null;
  return (
    <div className="run-state" data-tone={badge.tone}>
      <span className="run-badge" role="status" aria-label={`Run state: ${badge.text}`}>
        {badge.text}
      </span>
      {badge.price && (
        <span className="run-price" title={badge.price.startsWith('≈') ? 'Estimated price of its jobs in this run' : 'What it cost'}>
          {badge.price}
        </span>
      )}
    </div>
  );
}
