// A node's stale mark in its frame's title bar (canvas/marks.ts, hooks/use-graph-marks.ts): "Out of date" when its
// inputs or settings changed since its result was made (and so on everything downstream of such a node), "Not run
// yet" before its first result, "Can’t run" with the reason when it cannot run as it is; nothing for a fresh result
// or a node that does not run (an upload, a text, a list). Quiet: a small badge, its explanation as its tooltip and
// for screen readers; a blocked node's reason also as a line at the top of its body (NodeMarkProblem), readable
// without a pointer (a phone).
import { useEditor } from '../canvas/editor-context';
import { markLabel } from '../canvas/marks';
import { useNodeMark } from '../hooks/use-graph-marks';
import './node-mark.css';

export function NodeMark({ nodeId }: { nodeId: string }) {
  const info = useNodeMark(useEditor().marks, nodeId);
  const label = markLabel(info);
  if (!info || !label) return null;
  return (
    <span className={`node-mark ${info.mark}`} title={label.title} data-mark={info.mark}>
      {label.text}
      {info.mark !== 'blocked' && <span className="visually-hidden">: {label.title}</span>}
    </span>
  );
}

/** The reason a blocked node cannot run, as a line of its body. */
export function NodeMarkProblem({ nodeId }: { nodeId: string }) {
  const info = useNodeMark(useEditor().marks, nodeId);
  if (info?.mark !== 'blocked' || !info.problem) return null;
  return <p className="node-mark-problem small">{info.problem}</p>;
}
