// A canvas shown read-only: the editor's own nodes, which may be panned and zoomed but not moved, selected,
// connected, deleted or edited. Its view is remembered as the editor's is (hooks/use-viewport-memory.ts) under the
// key it is given, and fitted once its images have loaded when nothing is remembered. `StaticCanvasView` is a canvas
// read once over REST (a read-only link's page, a version's preview); a viewer's live canvas is live-canvas-view.tsx.
import { Background, Controls, MiniMap, Panel, ReactFlow, ReactFlowProvider, useEdgesState, useNodesState, type OnEdgesChange, type OnNodesChange } from '@xyflow/react';
import { useMemo, useRef, type ReactNode } from 'react';
import { ActivityStore } from '../canvas/activity';
import { EditorContext, type EditorActions } from '../canvas/editor-context';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { SMALL_SCREEN, useMediaQuery } from '../hooks/use-media-query';
import { useNamedElements } from '../hooks/use-named-elements';
import { useGraphMarks } from '../hooks/use-graph-marks';
import { useViewportMemory } from '../hooks/use-viewport-memory';
import { useShowLinkedNode } from '../hooks/use-result-actions';
import './canvas-extras.css';
import { nodeTypes } from '../kinds';

const ignore = () => undefined;

interface Props {
  /** The project of a live canvas (a viewer's): the variants under generation nodes are listed. */
  projectId?: string;
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  /** Only what xyflow measures (node sizes) changes: dragging, selection and deletion are off. */
  onNodesChange: OnNodesChange<CanvasNode>;
  onEdgesChange: OnEdgesChange<CanvasEdge>;
  /** Whether there is something to fit the view to (the canvas opened with nodes). */
  fitView: boolean;
  /** The key the view is remembered under in this browser (a project's id, `shared:<token>`); none: not remembered. */
  memory?: string;
  /** The minimap (off in a small preview). */
  overview?: boolean;
  children?: ReactNode;
}

export function CanvasView({ projectId, nodes, edges, onNodesChange, onEdgesChange, fitView, memory, overview = true, children }: Props) {
  const pane = useRef<HTMLDivElement>(null);
  const view = useViewportMemory(memory ?? null, pane, fitView);
  useShowLinkedNode(view.touched); // the gallery's "Show on canvas"
  const activity = useMemo(() => new ActivityStore(), []);
  const marks = useGraphMarks(nodes, edges);
  const actions = useMemo<EditorActions>(
    () => ({
      activity,
      projectId,
      readOnly: true,
      uploadFiles: ignore,
      setPrompt: ignore,
      setFields: ignore,
      setModel: ignore,
      generate: ignore,
      cancelGeneration: ignore,
      setImage: ignore,
      removeNode: ignore,
      removeEdge: ignore,
      marks,
    }),
    [activity, projectId, marks],
  );
  const named = useNamedElements(nodes, edges);
  const small = useMediaQuery(SMALL_SCREEN);

  return (
    <EditorContext.Provider value={actions}>
      <ReactFlow<CanvasNode, CanvasEdge>
        ref={pane}
        nodes={named.nodes}
        edges={named.edges}
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
        defaultViewport={view.defaultViewport}
        onMoveStart={view.onMoveStart}
        onMoveEnd={view.onMoveEnd}
        minZoom={0.1}
        aria-label="Canvas (view only)"
      >
        <Background gap={24} />
        <Controls showInteractive={false} />
        {overview && !small && <MiniMap pannable zoomable ariaLabel="Canvas overview" />}
        {children}
        {nodes.length === 0 && (
          <Panel position="top-center" className="empty-canvas">
            <p>
              <strong>This canvas is empty.</strong>
            </p>
          </Panel>
        )}
      </ReactFlow>
    </EditorContext.Provider>
  );
}

/** A canvas read once (REST): its own xyflow state, for node sizes only. */
interface StaticProps {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  overview?: boolean;
  /** See CanvasView's `memory`. */
  memory?: string;
}

export function StaticCanvasView(props: StaticProps) {
  return (
    <ReactFlowProvider>
      <StaticCanvas {...props} />
    </ReactFlowProvider>
  );
}

function StaticCanvas({ nodes: initialNodes, edges: initialEdges, overview, memory }: StaticProps) {
  const [nodes, , onNodesChange] = useNodesState(initialNodes);
  const [edges, , onEdgesChange] = useEdgesState(initialEdges);
  return (
    <div className="editor-canvas">
      <CanvasView nodes={nodes} edges={edges} onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} fitView={initialNodes.length > 0} memory={memory} overview={overview} />
    </div>
  );
}
