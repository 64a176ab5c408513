// A node's run state, as everyone on the canvas sees it (issue 35 point 1): a compact badge from the node's
// `data.run` and `data.job` (written by the service only, canvas/runs.ts): "Queued · 3rd", "Running · 40%",
// "Cached", "Done", "Failed: reason", "Skipped: reason", "Canceled"; beside it the node's price — the estimate before
// it runs (its line in the editor's estimate), what it cost once it has run. Shown on read-only canvases too.
import { useNodesData } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { nodePriceBefore, runBadge } from '../canvas/runs';
import { useRunsContext } from '../hooks/use-runs';
import './runs.css';

export function RunState({ nodeId }: { nodeId: string }) {
  const data = useNodesData<CanvasNode>(nodeId)?.data;
  const runs = useRunsContext();
  const badge = data ? runBadge(data) : undefined;
  const before = badge ? undefined : nodePriceBefore(runs?.estimate, nodeId);
  if (!badge && !before) return null;
  return (
    <div className="run-state" data-tone={badge?.tone ?? 'idle'}>
      {badge && (
        <span className="run-badge" role="status" aria-label={`Run state: ${badge.text}`}>
          {badge.text}
        </span>
      )}
      {(badge?.price ?? before) && (
        <span className="run-price" title={badge?.price && !badge.price.startsWith('≈') ? 'What it cost' : 'Estimated price of running it'}>
          {badge?.price ?? before}
        </span>
      )}
    </div>
  );
}
