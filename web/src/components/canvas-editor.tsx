// The canvas editor: xyflow with upload and generation nodes, undo/redo, file drop and paste, auto-save.
import {
  addEdge,
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import type { Project } from '../api/client';
import { ActivityStore } from '../canvas/activity';
import { EditorContext, type EditorActions } from '../canvas/editor-context';
import { createNode, freeSpot, newId, toDoc, type CanvasEdge, type CanvasNode } from '../canvas/model';
import { useAutosave } from '../hooks/use-autosave';
import { useCanvasHistory } from '../hooks/use-canvas-history';
import type { LoadedCanvas } from '../hooks/use-canvas-document';
import { useGeneration } from '../hooks/use-generation';
import { publishTemplate } from '../hooks/use-templates';
import { usePasteImages } from '../hooks/use-paste-images';
import { useUndoShortcuts } from '../hooks/use-undo-shortcuts';
import { useUploads } from '../hooks/use-uploads';
import { AppHeader } from './app-header';
import { ProjectBreadcrumb } from './project-breadcrumb';
import { EditorToolbar } from './editor-toolbar';
import { SaveStatus } from './save-status';
import { SaveTemplateDialog } from './save-template-dialog';
import { ShareDialog } from './share-dialog';
import { nodeTypes } from './node-types';

const hasFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');

export function CanvasEditor({ project, initial, canShare }: { project: Project; initial: LoadedCanvas; canShare: boolean }) {
  const activity = useMemo(() => new ActivityStore(), []);
  const history = useCanvasHistory(initial, {
    // An undo never brings back a "generating" flag for a request that has finished (or the reverse).
    restoreNode: (node) => {
      const data = { ...node.data };
      if (activity.isGenerating(node.id)) data.isGenerating = true;
      else delete data.isGenerating;
      return { ...node, data };
    },
  });
  const { nodes, edges, setNodes, setEdges, checkpoint, latest } = history;
  const doc = useMemo(() => toDoc(nodes, edges), [nodes, edges]);
  const save = useAutosave(project.id, doc, initial);
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const pane = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  const uploadFiles = useUploads(history, activity);
  const generate = useGeneration(history, activity);

  /** The flow position at the middle of the visible canvas. */
  const viewCenter = useCallback(() => {
    const rect = pane.current?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    return flow.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
  }, [flow]);

  const actions = useMemo<EditorActions>(
    () => ({
      activity,
      uploadFiles,
      generate: (nodeId) => void generate(nodeId),
      setPrompt: (nodeId, prompt) => {
        checkpoint(`prompt:${nodeId}`);
        setNodes((all) => all.map((n) => (n.id === nodeId ? { ...n, data: { ...n.data, prompt } } : n)));
      },
      removeNode: (nodeId) => void flow.deleteElements({ nodes: [{ id: nodeId }] }),
      removeEdge: (edgeId) => void flow.deleteElements({ edges: [{ id: edgeId }] }),
    }),
    [activity, uploadFiles, generate, checkpoint, setNodes, flow],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      if (changes.some((c) => c.type === 'remove' || c.type === 'add' || c.type === 'replace')) checkpoint();
      else if (!dragging.current && changes.some((c) => c.type === 'position' && c.position)) checkpoint('keyboard-move');
      setNodes((all) => applyNodeChanges(changes, all));
    },
    [checkpoint, setNodes],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<CanvasEdge>[]) => {
      if (changes.some((c) => c.type === 'remove' || c.type === 'add' || c.type === 'replace')) checkpoint();
      setEdges((all) => applyEdgeChanges(changes, all));
    },
    [checkpoint, setEdges],
  );

  const connect = useCallback(
    (connection: Connection) => {
      checkpoint();
      setEdges((all) => addEdge({ ...connection, id: newId('edge') }, all));
    },
    [checkpoint, setEdges],
  );

  // Edges go into generation nodes only, never from a node into itself.
  const isValidConnection = useCallback(
    (c: Connection | CanvasEdge) => c.source !== c.target && latest.current.nodes.find((n) => n.id === c.target)?.type === 'generation',
    [latest],
  );

  const dragStart = useCallback(() => {
    dragging.current = true;
    checkpoint();
  }, [checkpoint]);
  const dragStop = useCallback(() => {
    dragging.current = false;
  }, []);

  const addGeneration = () => {
    const center = viewCenter();
    const node = createNode('generation', freeSpot({ x: center.x - 130, y: center.y - 200 }, latest.current.nodes, { width: 260, height: 400 }));
    checkpoint();
    setNodes((all) => [...all.map((n) => ({ ...n, selected: false })), { ...node, selected: true }]);
  };

  const addImages = (files: File[]) => {
    const center = viewCenter();
    uploadFiles(files, { at: { x: center.x - 420, y: center.y - 150 * files.length }, source: 'file-picker' });
  };

  const selectedNodes = nodes.filter((n) => n.selected);
  const selectedTargets = selectedNodes.filter((n) => n.type === 'generation');
  const canConnect = selectedTargets.length === 1 && selectedNodes.some((n) => n.id !== selectedTargets[0].id && n.data.image);
  const connectSelected = () => {
    const target = selectedTargets[0];
    const sources = selectedNodes.filter((n) => n.id !== target.id && n.data.image && !edges.some((e) => e.source === n.id && e.target === target.id));
    if (sources.length === 0) return;
    checkpoint();
    setEdges((all) => [...all, ...sources.map((s) => ({ id: newId('edge'), source: s.id, target: target.id }))]);
  };
  const canDelete = selectedNodes.length > 0 || edges.some((e) => e.selected);
  const deleteSelected = () =>
    void flow.deleteElements({ nodes: selectedNodes.map((n) => ({ id: n.id })), edges: edges.filter((e) => e.selected).map((e) => ({ id: e.id })) });

  // Save as template: the canvas as it is now (nodes, edges and the visible viewport), under a name asked for.
  const [savingTemplate, setSavingTemplate] = useState(false);
  const [templateNote, setTemplateNote] = useState<string | null>(null);
  useEffect(() => {
    if (!templateNote) return;
    const timer = setTimeout(() => setTemplateNote(null), 6000);
    return () => clearTimeout(timer);
  }, [templateNote]);
  const saveTemplate = async (name: string) => {
    const { nodes: savedNodes, edges: savedEdges } = toDoc(latest.current.nodes, latest.current.edges);
    const { x, y, zoom } = flow.getViewport();
    await publishTemplate(name, { nodes: savedNodes, edges: savedEdges, viewport: { x, y, zoom } });
    setSavingTemplate(false);
    setTemplateNote(`Saved as template “${name}”`);
  };

  const [sharing, setSharing] = useState(false);

  useUndoShortcuts(history.undo, history.redo);
  usePasteImages((files) => uploadFiles(files, { at: viewCenter(), source: 'paste' }));

  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };
  const onDrop = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    uploadFiles([...event.dataTransfer.files], { at: flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }), source: 'drop' });
  };

  return (
    <EditorContext.Provider value={actions}>
      <div className="editor">
        <AppHeader>
          <ProjectBreadcrumb name={project.name} />
          <SaveStatus status={save.status} version={save.version} />
        </AppHeader>
        <EditorToolbar
          onAddImages={addImages}
          onAddGeneration={addGeneration}
          onConnectSelected={connectSelected}
          canConnect={canConnect}
          onDeleteSelected={deleteSelected}
          canDelete={canDelete}
          onUndo={history.undo}
          onRedo={history.redo}
          canUndo={history.canUndo}
          canRedo={history.canRedo}
          onSaveTemplate={() => (setTemplateNote(null), setSavingTemplate(true))}
          canSaveTemplate={nodes.length > 0}
          templateNote={templateNote}
          onShare={canShare ? () => setSharing(true) : undefined}
        />
        {sharing && <ShareDialog projectId={project.id} projectName={project.name} onClose={() => setSharing(false)} />}
        {savingTemplate && <SaveTemplateDialog defaultName={project.name} onSave={saveTemplate} onClose={() => setSavingTemplate(false)} />}
        <div className="editor-canvas" ref={pane} onDragOver={onDragOver} onDrop={onDrop}>
          <ReactFlow<CanvasNode, CanvasEdge>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={connect}
            isValidConnection={isValidConnection}
            onNodeDragStart={dragStart}
            onNodeDragStop={dragStop}
            onSelectionDragStart={dragStart}
            onSelectionDragStop={dragStop}
            deleteKeyCode={['Backspace', 'Delete']}
            multiSelectionKeyCode={['Meta', 'Control']}
            colorMode="system"
            fitView={initial.nodes.length > 0}
            fitViewOptions={{ maxZoom: 1, padding: 0.2 }}
            minZoom={0.1}
            defaultEdgeOptions={{ animated: false }}
            aria-label="Canvas"
          >
            <Background gap={24} />
            <Controls />
            <MiniMap pannable zoomable ariaLabel="Canvas overview" />
            {nodes.length === 0 && (
              <Panel position="top-center" className="empty-canvas">
                <p>
                  <strong>Your canvas is empty.</strong> Add images (or drop or paste them here), add a generation node, and connect the
                  images into it.
                </p>
              </Panel>
            )}
          </ReactFlow>
        </div>
      </div>
    </EditorContext.Provider>
  );
}
