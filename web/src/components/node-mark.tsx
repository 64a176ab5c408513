// A node's stale mark in its frame's title bar (canvas/marks.ts, hooks/use-graph-marks.ts): "Out of date" when its
// inputs or settings changed since its result was made (and so on everything downstream of such a node), "Not run
// yet" before its first result, "Can’t run" with the reason when it cannot run as it is; nothing for a fresh result
// or a node that does not run (an upload, a text, a list). Quiet: a small badge, its explanation (a blocked node's
// reason, naming nodes as people read them) as its tooltip and for screen readers. The reason is not a line of the
// node's body: a node that cannot run says what it waits for in its own words (a generation's "Connect an image …"),
// and the node keeps the size the canvas plans for it.
import { useEditor } from '../canvas/editor-context';
import { markLabel, nodesNamedIn, problemInWords, type MarkInfo } from '../canvas/marks';
import { useNodeNameList } from '../canvas/names';
import { useNodeMark } from '../hooks/use-graph-marks';
import './node-mark.css';

/** The node's mark, a blocked node's problem naming nodes by their names on the canvas. */
function useMarkInWords(nodeId: string): MarkInfo | undefined {
  const info = useNodeMark(useEditor().marks, nodeId);
  const ids = info?.problem ? nodesNamedIn(info.problem) : [];
  const names = useNodeNameList(ids);
  if (!info?.problem || ids.length === 0) return info;
  return { ...info, problem: problemInWords(info.problem, (id) => names[ids.indexOf(id)]) };
}

export function NodeMark({ nodeId }: { nodeId: string }) {
  const info = useMarkInWords(nodeId);
  const label = markLabel(info);
  if (!info || !label) return null;
  return (
    <span className={`node-mark ${info.mark}`} title={label.title} data-mark={info.mark}>
      {label.text}
      <span className="visually-hidden">: {label.title}</span>
    </span>
  );
}

