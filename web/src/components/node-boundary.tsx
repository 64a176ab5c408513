// One node that cannot be drawn (data saved by an older or foreign client, a bug) shows as a broken node with
// its delete button; the rest of the canvas keeps working and the owner can repair it.
import { Component, type ComponentType, type ReactNode } from 'react';
import type { NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../canvas/model';
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

/** `Node` drawn inside a boundary of its own. */
export function withNodeBoundary(Node: ComponentType<NodeProps<CanvasNode>>, kind: 'upload' | 'generation'): ComponentType<NodeProps<CanvasNode>> {
  function Guarded(props: NodeProps<CanvasNode>) {
    const broken = (
      <NodeFrame nodeId={props.id} title={kind === 'upload' ? 'Image' : 'Generation'} kind={kind}>
        <p className="node-error" role="alert">
          This node could not be shown. Delete it to repair the canvas.
        </p>
      </NodeFrame>
    );
    return (
      <NodeBoundary fallback={broken}>
        <Node {...props} />
      </NodeBoundary>
    );
  }
  Guarded.displayName = `Guarded(${Node.displayName ?? Node.name})`;
  return Guarded;
}
