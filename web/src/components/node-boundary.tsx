// One node that cannot be drawn (data saved by an older or foreign client, a bug) shows as a broken node with
// its delete button; the rest of the canvas keeps working and the owner can repair it. The wrapper also gives the
// node's frame its kind's UI entry (web/src/kinds/).
import { Component, type ComponentType, type ReactNode } from 'react';
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
import { KindUiContext, type KindUi } from '../kinds/ui';
import { NodeFrame } from './node-frame';

class NodeBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

/** A kind's node component, drawn inside a boundary of its own, with its kind's UI entry. */
export function withNodeBoundary({ component: Node, ...ui }: KindUi): ComponentType<NodeProps<CanvasNode>> {
  function Guarded(props: NodeProps<CanvasNode>) {
    const broken = (
      <NodeFrame nodeId={props.id} type={props.type}>
        <p className="node-error" role="alert">
          This node could not be shown. Delete it to repair the canvas.
        </p>
      </NodeFrame>
    );
    return (
      <KindUiContext.Provider value={ui}>
        <NodeBoundary fallback={broken}>
          <Node {...props} />
        </NodeBoundary>
      </KindUiContext.Provider>
    );
  }
  Guarded.displayName = `Guarded(${Node.displayName ?? Node.name})`;
  return Guarded;
}
