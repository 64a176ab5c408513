// A canvas shown read-only (a viewer's canvas page, a read-only link's page): the editor's own nodes, which
// may be panned and zoomed but not moved, selected, connected, deleted or edited. Nothing here is ever saved.
import { Background, Controls, MiniMap, Panel, ReactFlow, useEdgesState, useNodesState } from '@xyflow/react';
import { useMemo } from 'react';
import { ActivityStore } from '../canvas/activity';
import { EditorContext, type EditorActions } from '../canvas/editor-context';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { nodeTypes } from './node-types';

const ignore = () => undefined;

export function CanvasView({ nodes: initialNodes, edges: initialEdges }: { nodes: CanvasNode[]; edges: CanvasEdge[] }) {
  const activity = useMemo(() => new ActivityStore(), []);
  const actions = useMemo<EditorActions>(
    () => ({ activity, readOnly: true, uploadFiles: ignore, setPrompt: ignore, generate: ignore, removeNode: ignore, removeEdge: ignore }),
    [activity],
  );
  // Local state only for what xyflow measures (node sizes): with dragging, selection and deletion off, the
  // canvas itself never changes.
  const [nodes, , onNodesChange] = useNodesState(initialNodes);
  const [edges, , onEdgesChange] = useEdgesState(initialEdges);

  return (
    <EditorContext.Provider value={actions}>
      <div className="editor-canvas">
        <ReactFlow<CanvasNode, CanvasEdge>
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          edgesReconnectable={false}
          deleteKeyCode={null}
          onNodeClick={ignore} // keeps the nodes' own links (Download) and scrolling usable: xyflow turns off pointer events of inert nodes
          colorMode="system"
          fitView={initialNodes.length > 0}
          fitViewOptions={{ maxZoom: 1, padding: 0.2 }}
          minZoom={0.1}
          aria-label="Canvas (view only)"
        >
          <Background gap={24} />
          <Controls showInteractive={false} />
          <MiniMap pannable zoomable ariaLabel="Canvas overview" />
          {nodes.length === 0 && (
            <Panel position="top-center" className="empty-canvas">
              <p>
                <strong>This canvas is empty.</strong>
              </p>
            </Panel>
          )}
        </ReactFlow>
      </div>
    </EditorContext.Provider>
  );
}
