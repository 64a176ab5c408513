// The note on a canvas that holds the example (docs/api.md "Example canvas"): what the example shows, **Clear
// example** (its nodes and their edges go, one undoable step) and **Keep** (the note goes: the nodes lose their
// example mark and become the canvas's own, also one step). Shown while any node carries `data.example`.
import { Panel } from '@xyflow/react';
import type { LiveSession } from '../canvas/live-session';
import type { CanvasNode } from '../canvas/model';
import '../example-note.css';

const isExample = (node: CanvasNode) => (node.data as { example?: unknown }).example === true;

export function ExampleNote({ session, nodes }: { session: LiveSession; nodes: CanvasNode[] }) {
  const example = nodes.filter(isExample);
  if (example.length === 0) return null;

  const clear = () => {
    session.step();
    session.remove({ nodes: example.map((n) => n.id) }); // their edges go with them
  };
  const keep = () => {
    session.step();
    for (const node of example) session.setData(node.id, { example: undefined });
  };

  return (
    <Panel position="top-right" className="example-note" role="region" aria-label="Example canvas">
      <p>
        <strong>This is an example.</strong> Two pictures are connected to a generation node with a prompt: press <em>Generate</em> to
        see them combined. Change the prompt or add your own images, or clear it and start fresh.
      </p>
      <div className="row">
        <button type="button" className="button primary" onClick={clear}>
          Clear example
        </button>
        <button type="button" className="button ghost" onClick={keep} aria-label="Keep the example and hide this note">
          Keep
        </button>
      </div>
    </Panel>
  );
}
