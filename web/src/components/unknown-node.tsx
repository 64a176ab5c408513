// A node of a type no kind of this page has (saved by a newer client, or a kind since removed): drawn as such,
// with its type and no handles, never guessed as another kind. It can be moved and deleted; its data is left as it is.
import { useInternalNode, type NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { NodeFrame } from './node-frame';

export function UnknownNode({ id }: NodeProps<CanvasNode>) {
  // xyflow hands an unknown type's component the type `default`: the node's own is in the store.
  const type = useInternalNode<CanvasNode>(id)?.type;
  return (
    <NodeFrame nodeId={id} type={type}>
      <p className="muted small" role="note">
        A node of a kind this page does not know{type ? <> (“{type}”)</> : null}. Reload the page to get the newest version; it
        is kept as it is.
      </p>
    </NodeFrame>
  );
}
