// A read-only link's canvas, live (hooks/use-link-canvas.ts): first the canvas the page read over REST, then the live
// document's as it changes — anyone's edit shows as it happens. Panned and zoomed only, as StaticCanvasView; what
// xyflow measures and this browser's selection stay local.
import { applyEdgeChanges, applyNodeChanges, ReactFlowProvider, type EdgeChange, type NodeChange } from '@xyflow/react';
import { useCallback, useEffect, useState } from 'react';
import { toFlowEdges, toFlowNodes, type CanvasEdge, type CanvasNode } from '../canvas/model';
import type { LinkCanvas } from '../hooks/use-link-canvas';
import { CanvasView } from './canvas-view';

interface Props {
  /** The canvas read over REST (shown until the live document has synced). */
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  rendered: LinkCanvas['rendered'];
  memory: string;
}

export function LinkCanvasView(props: Props) {
  return (
    <ReactFlowProvider>
      <LinkCanvasInner {...props} />
    </ReactFlowProvider>
  );
}

/** Only what stays in this browser: sizes and selection (the document adds, moves, replaces and removes). */
const localOnly = <T extends NodeChange<CanvasNode> | EdgeChange<CanvasEdge>>(changes: T[]) =>
  changes.filter((c) => c.type === 'dimensions' || c.type === 'select');

function LinkCanvasInner({ nodes: initialNodes, edges: initialEdges, rendered, memory }: Props) {
  const [nodes, setNodes] = useState(initialNodes);
  const [edges, setEdges] = useState(initialEdges);
  useEffect(() => {
    if (!rendered) return;
    const ids = new Set(rendered.nodes.map((n) => n.id as string));
    setNodes((previous) => toFlowNodes(rendered.nodes, previous));
    setEdges((previous) => toFlowEdges(rendered.edges, previous, ids));
  }, [rendered]);
  const onNodesChange = useCallback((changes: NodeChange<CanvasNode>[]) => setNodes((all) => applyNodeChanges(localOnly(changes), all)), []);
  const onEdgesChange = useCallback((changes: EdgeChange<CanvasEdge>[]) => setEdges((all) => applyEdgeChanges(localOnly(changes), all)), []);
  return (
    <div className="editor-canvas">
      <CanvasView nodes={nodes} edges={edges} onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} fitView={initialNodes.length > 0} memory={memory} />
    </div>
  );
}
