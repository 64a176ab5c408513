// The canvas editor on the live document: xyflow with upload and generation nodes, file drop and paste, undo/redo
// of this tab's own changes, everyone else's pointers and selections, the history of versions. Every action is a
// small write to the document (hooks/use-live-canvas.ts); nothing is ever saved as a whole. The canvas's
// shortcuts, context menus and clipboard are hooks/use-canvas-{shortcuts,menus,commands}.ts; new nodes are placed
// in view by hooks/use-placement.ts; the view is remembered per project by hooks/use-viewport-memory.ts. Nodes and
// edges carry names people read (canvas/names.ts), a node added from the toolbar takes the focus, the canvas is a
// Tab stop whose arrow keys pan; on a phone-sized screen the minimap is off unless shown from the toolbar's More menu.
import { Background, ControlButton, Controls, MiniMap, Panel, ReactFlow, useReactFlow, type Connection, type FinalConnectionState } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import type { Project, TemplateBody } from '../api/client';
import { ActivityStore } from '../canvas/activity';
import { EditorContext, type EditorActions } from '../canvas/editor-context';
import type { LiveSession } from '../canvas/live-session';
import { connectionProblem, handleOf, kindOf, linkPorts } from '../canvas/kinds';
import { newId, toDoc, type CanvasEdge, type CanvasNode } from '../canvas/model';
import { gridSize } from '../canvas/placement';
import { FIT_OPTIONS, useCanvasCommands } from '../hooks/use-canvas-commands';
import { useCanvasShortcuts } from '../hooks/use-canvas-shortcuts';
import { useCanvasMenus } from '../hooks/use-canvas-menus';
import { usePlacement } from '../hooks/use-placement';
import { useArrange } from '../hooks/use-arrange';
import { useViewportMemory } from '../hooks/use-viewport-memory';
import { useResultActions } from '../hooks/use-result-actions';
import { focusWhenShown, useFocusNewNodes } from '../hooks/use-focus-new-nodes';
import { useKeyboardPan } from '../hooks/use-keyboard-pan';
import { SMALL_SCREEN, useMediaQuery } from '../hooks/use-media-query';
import { useNamedElements } from '../hooks/use-named-elements';
import { usePinchOverNodes } from '../hooks/use-pinch-over-nodes';
import { useLongPress } from '../hooks/use-long-press';
import { useGeneration } from '../hooks/use-generation';
import { RunsContext, useRuns } from '../hooks/use-runs';
import { useGraphMarks } from '../hooks/use-graph-marks';
import { useLiveCanvas } from '../hooks/use-live-canvas';
import { useStore } from '../hooks/use-live-session';
import { useUser } from '../hooks/use-session';
import { publishTemplate } from '../hooks/use-templates';
import { usePasteImages } from '../hooks/use-paste-images';
import { useUndoShortcuts } from '../hooks/use-undo-shortcuts';
import { useUploads } from '../hooks/use-uploads';
import { useFileDrag } from '../hooks/use-file-drag';
import { DropHighlight, UploadTrayPanel } from './upload-tray';
import './canvas-extras.css';
import { ConnectHint } from './connect-hint';
import { EditorToolbar } from './editor-toolbar';
import { ExampleNote } from './example-note';
import { galleryPath, projectSpendPath } from '../paths';
import { HistoryPanel } from './history-panel';
import { LiveNotices } from './live-notices';
import { nodeTypes } from '../kinds';
import { CanvasMenu } from './canvas-menu';
import { RemotePresence } from './remote-presence';
import { RunBar } from './run-button';
import { RunPanel } from './run-panel';
import { SaveTemplateDialog } from './save-template-dialog';
import { ShareDialog } from './share-dialog';
import { ShortcutSheet } from './shortcut-sheet';

const hasFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');
/** Typing in a prompt with no pause this long (and no focus change) is one undo step. */
const TYPING_PAUSE_MS = 1000;

export function CanvasEditor({ project, session, canShare }: { project: Project; session: LiveSession; canShare: boolean }) {
  const activity = useMemo(() => new ActivityStore(), []);
  const live = useLiveCanvas(session, false);
  const { nodes, edges, latest, select } = live;
  const history = useStore(session.history);
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const pane = useRef<HTMLDivElement>(null);
  const [initiallyEmpty] = useState(() => nodes.length === 0);
  const view = useViewportMemory(project.id, pane, !initiallyEmpty);
  const placement = usePlacement(pane, latest, view.touched);
  const commands = useCanvasCommands(session, latest, select, placement, view.touched);
  const arrange = useArrange(session, latest, placement);
  const results = useResultActions(project.id, session, latest, select, placement, view.touched);
  const { imageNodeFrom } = results;
  const [showingShortcuts, setShowingShortcuts] = useState(false);
  useCanvasShortcuts(commands, () => setShowingShortcuts(true));
  const menus = useCanvasMenus(select, commands);
  const named = useNamedElements(nodes, edges);
  const withFocus = useFocusNewNodes(session, pane);
  const keyboardPan = useKeyboardPan();
  usePinchOverNodes(pane);
  useLongPress(pane, { onNode: menus.onNodeLongPress, onPane: menus.onPaneLongPress });
  const small = useMediaQuery(SMALL_SCREEN);
  const [minimapChoice, setMinimapChoice] = useState<boolean | null>(null);
  const showMinimap = minimapChoice ?? !small;

  // An image added from the toolbar's file picker takes the focus once its file is stored and its node added.
  const uploads = useUploads(session, latest, activity, (nodeId, source) => {
    if (source === 'file-picker' && pane.current) focusWhenShown(pane.current, nodeId);
  });
  const { uploadFiles } = uploads;
  const draggingFiles = useFileDrag(pane);
  const { generate, cancel: cancelGeneration } = useGeneration(session, latest, activity);
  const runs = useRuns(project.id, session, nodes, edges);
  const marks = useGraphMarks(nodes, edges);

  const actions = useMemo<EditorActions>(
    () => ({
      activity,
      projectId: project.id,
      uploadFiles,
      generate: (nodeId) => void generate(nodeId),
      cancelGeneration: (nodeId, jobId) => void cancelGeneration(nodeId, jobId),
      setImage: (nodeId, image) => {
        session.step();
        session.setData(nodeId, { image });
      },
      setPrompt: (nodeId, prompt, newRun) => {
        session.step(`prompt:${nodeId}`, { within: TYPING_PAUSE_MS, fresh: newRun });
        session.setData(nodeId, { prompt: prompt === '' ? undefined : prompt });
      },
      setFields: (nodeId, fields, typing) => {
        if (typing) session.step(`${Object.keys(fields).join(',')}:${nodeId}`, { within: TYPING_PAUSE_MS, fresh: typing.newRun });
        else session.step();
        session.setData(nodeId, fields);
      },
      setModel: (nodeId, model) => {
        session.step();
        session.setData(nodeId, { model });
      },
      newImageNode: (image, beside) => imageNodeFrom(image, { beside }),
      removeNode: (nodeId) => void flow.deleteElements({ nodes: [{ id: nodeId }] }),
      removeEdge: (edgeId) => void flow.deleteElements({ edges: [{ id: edgeId }] }),
      reorderEdges: (edgeIds, nodeId, fields) => {
        const byId = new Map(flow.getEdges().map((e) => [e.id, e]));
        const moved = edgeIds.flatMap((id) => {
          const e = byId.get(id);
          return e ? [{ id: e.id, source: e.source, target: e.target, ...(e.sourceHandle ? { sourceHandle: e.sourceHandle } : {}), ...(e.targetHandle ? { targetHandle: e.targetHandle } : {}) }] : [];
        });
        if (moved.length !== edgeIds.length) return;
        session.step(); // removed and added again after the others, with the data: one undo step
        session.remove({ edges: edgeIds });
        session.add({ edges: moved });
        session.setData(nodeId, fields);
      },
      marks,
    }),
    [activity, project.id, uploadFiles, generate, cancelGeneration, session, flow, imageNodeFrom, marks],
  );

  // An edge joins an output to an input it fits (src/kinds/: a text into a prompt, an image into images), never a
  // node to itself; a refused one says why (components/connect-hint.tsx).
  const problemOf = useCallback(
    (c: Connection | CanvasEdge) => {
      const end = (id: string, handle: string | null | undefined) => ({ type: flow.getNode(id)?.type, handle, name: flow.getNode(id)?.ariaLabel });
      return connectionProblem(end(c.source, c.sourceHandle), end(c.target, c.targetHandle), c.source === c.target);
    },
    [flow],
  );
  const refusal = useRef<string | undefined>(undefined);
  const [refused, setRefused] = useState<string | null>(null);
  const isValidConnection = useCallback(
    (c: Connection | CanvasEdge) => {
      const problem = problemOf(c);
      if (problem) refusal.current = problem;
      return problem === undefined;
    },
    [problemOf],
  );
  const onConnectStart = useCallback(() => {
    refusal.current = undefined;
    setRefused(null);
  }, []);
  const onConnectEnd = (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
    // Let go over a handle that does not fit: say why (a drag over nothing offers a menu instead).
    if (state.fromHandle && state.toHandle && state.isValid === false) {
      const [from, to] = state.fromHandle.type === 'source' ? [state.fromHandle, state.toHandle] : [state.toHandle, state.fromHandle];
      const problem = problemOf({ source: from.nodeId, sourceHandle: from.id ?? null, target: to.nodeId, targetHandle: to.id ?? null });
      if (problem) setRefused(problem);
    }
    menus.onConnectEnd(event, state);
  };
  // A click-to-connect ended on a handle that does not fit: say why.
  const onClickConnectEnd = () => {
    if (refusal.current) setRefused(refusal.current);
  };
  // A new edge names its ports, except a default one (as SPEC's edges, which name none).
  const onConnect = useCallback(
    (c: Connection) => {
      const source = kindOf(flow.getNode(c.source)?.type);
      const target = kindOf(flow.getNode(c.target)?.type);
      live.onConnect({
        ...c,
        sourceHandle: source ? (handleOf(source.outputs, c.sourceHandle) ?? null) : c.sourceHandle,
        targetHandle: target ? (handleOf(target.inputs, c.targetHandle) ?? null) : c.targetHandle,
      });
    },
    [flow, live],
  );

  // New nodes land in view: at the cursor when the action came from it, else in the middle of the view.
  const addImages = (files: File[]) => withFocus(() => uploadFiles(files, { at: placement.place(gridSize(files.length)), source: 'file-picker' }));

  // Connect selected: the one selected node that takes inputs is fed by each other selected node with something to
  // give (an image, a text) into the first of its inputs that fits.
  const selectedNodes = nodes.filter((n) => n.selected);
  const selectedTargets = selectedNodes.filter((n) => (kindOf(n.type)?.inputs.length ?? 0) > 0);
  const feeds = (source: CanvasNode, target: CanvasNode) => {
    const giving = source.data.image !== undefined || (typeof source.data.text === 'string' && source.data.text !== '');
    return giving ? linkPorts({ type: source.type }, { type: target.type }) : null;
  };
  const canConnect = selectedTargets.length === 1 && selectedNodes.some((n) => n.id !== selectedTargets[0].id && feeds(n, selectedTargets[0]));
  const connectSelected = () => {
    const target = selectedTargets[0];
    const sources = selectedNodes.flatMap((n) => {
      const ports = n.id !== target.id && !edges.some((e) => e.source === n.id && e.target === target.id) ? feeds(n, target) : null;
      return ports ? [{ id: newId('edge'), source: n.id, target: target.id, ...ports }] : [];
    });
    if (sources.length === 0) return;
    session.step();
    session.add({ edges: sources });
  };
  const canDelete = selectedNodes.length > 0 || edges.some((e) => e.selected);
  const deleteSelected = () =>
    void flow.deleteElements({ nodes: selectedNodes.map((n) => ({ id: n.id })), edges: edges.filter((e) => e.selected).map((e) => ({ id: e.id })) });

  // A note beside the toolbar for a while (a template saved, a version restored).
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(null), 6000);
    return () => clearTimeout(timer);
  }, [note]);

  // Save as template: the canvas as it is now (nodes, edges and the visible viewport), under a name asked for.
  const [savingTemplate, setSavingTemplate] = useState(false);
  const saveTemplate = async (name: string) => {
    const { nodes: savedNodes, edges: savedEdges } = toDoc(latest.current.nodes, latest.current.edges);
    const { x, y, zoom } = flow.getViewport();
    // The API's union of kinds; a node of a type no kind has (kept as it came) is refused by the service, naming it.
    const nodes = savedNodes as NonNullable<TemplateBody['canvas']>['nodes'];
    await publishTemplate(name, { nodes, edges: savedEdges, viewport: { x, y, zoom } });
    setSavingTemplate(false);
    setNote(`Saved as template “${name}”`);
  };

  const [sharing, setSharing] = useState(false);
  const [showingHistory, setShowingHistory] = useState(false);
  const me = useUser();
  const peers = useStore(session.peers);
  const names = useMemo(() => new Map([...peers.map((p) => [p.user.id, p.user.name] as const), [me.id, 'you'] as const]), [peers, me.id]);

  useUndoShortcuts(session.undo, session.redo);
  usePasteImages((files) => uploadFiles(files, { at: placement.place(gridSize(files.length), placement.cursor() ?? undefined), source: 'paste' }));

  const onDragOver = (event: DragEvent) => {
    if (results.onDragOver(event) || !hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };
  const onDrop = (event: DragEvent) => {
    if (results.onDrop(event) || !hasFiles(event)) return;
    event.preventDefault();
    const files = [...event.dataTransfer.files];
    uploadFiles(files, { at: placement.place(gridSize(files.length), flow.screenToFlowPosition({ x: event.clientX, y: event.clientY })), source: 'drop' });
  };

  return (
    <RunsContext.Provider value={runs}><EditorContext.Provider value={actions}>
      <EditorToolbar
        onAddImages={addImages}
        onAddGeneration={() => withFocus(() => commands.addGeneration())}
        onConnectSelected={connectSelected}
        canConnect={canConnect}
        onDeleteSelected={deleteSelected}
        canDelete={canDelete}
        onUndo={session.undo}
        onRedo={session.redo}
        canUndo={history.canUndo}
        canRedo={history.canRedo}
        onSaveTemplate={() => (setNote(null), setSavingTemplate(true))}
        canSaveTemplate={nodes.length > 0}
        onShowHistory={() => setShowingHistory(true)}
        galleryHref={galleryPath(project.id)}
        spendHref={projectSpendPath(project.id)}
        note={note}
        onShare={canShare ? () => setSharing(true) : undefined}
        minimap={{ shown: showMinimap, toggle: () => setMinimapChoice(!showMinimap) }}
      />
      <LiveNotices session={session} />
      {sharing && <ShareDialog projectId={project.id} projectName={project.name} onClose={() => setSharing(false)} />}
      {savingTemplate && <SaveTemplateDialog defaultName={project.name} onSave={saveTemplate} onClose={() => setSavingTemplate(false)} />}
      {showingHistory && (
        <HistoryPanel
          projectId={project.id}
          names={names}
          onClose={() => setShowingHistory(false)}
          onRestored={() => setShowingHistory(false)} // the restore notice says it (people-notices.tsx), with Undo
        />
      )}
      {showingShortcuts && <ShortcutSheet onClose={() => setShowingShortcuts(false)} />}
      {menus.menu && (
        <CanvasMenu
          menu={menus.menu}
          nodes={nodes}
          commands={commands}
          placement={placement}
          toFlow={(client) => flow.screenToFlowPosition(client, { snapToGrid: false })}
          addImages={(files, at, feeds) => uploadFiles(files, { at, feeds, source: 'file-picker' })}
          onClose={menus.close}
          arrange={arrange}
          openMenu={menus.open}
        />
      )}
      <div className="editor-canvas" ref={pane} onDragOver={onDragOver} onDrop={onDrop} onDoubleClick={menus.onDoubleClick} {...live.pointer}>
        <ReactFlow<CanvasNode, CanvasEdge>
          nodes={named.nodes}
          edges={named.edges}
          nodeTypes={nodeTypes}
          onNodesChange={live.onNodesChange}
          onEdgesChange={live.onEdgesChange}
          onConnect={onConnect}
          onConnectStart={onConnectStart}
          onClickConnectStart={onConnectStart}
          onClickConnectEnd={onClickConnectEnd}
          isValidConnection={isValidConnection}
          onNodeDragStart={live.onDragStart}
          onNodeDragStop={live.onDragStop}
          onSelectionDragStart={live.onDragStart}
          onSelectionDragStop={live.onDragStop}
          deleteKeyCode={['Backspace', 'Delete']}
          multiSelectionKeyCode={['Meta', 'Control', 'Shift']}
          selectionOnDrag
          panOnDrag={[1, 2]}
          panOnScroll
          zoomOnDoubleClick={false}
          onConnectEnd={onConnectEnd}
          onNodeContextMenu={menus.onNodeContextMenu}
          onSelectionContextMenu={menus.onSelectionContextMenu}
          onPaneContextMenu={menus.onPaneContextMenu}
          defaultViewport={view.defaultViewport}
          onMoveStart={view.onMoveStart}
          onMoveEnd={view.onMoveEnd}
          colorMode="system"
          fitViewOptions={FIT_OPTIONS}
          minZoom={0.1}
          defaultEdgeOptions={{ animated: false }}
          aria-label="Canvas"
          tabIndex={0}
          onKeyDown={keyboardPan}
        >
          <Background gap={24} />
          <Controls>
            <ControlButton onClick={() => setShowingShortcuts(true)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" aria-keyshortcuts="?">
              ?
            </ControlButton>
          </Controls>
          {showMinimap && <MiniMap pannable zoomable ariaLabel="Canvas overview" onClick={menus.onMiniMapClick} />}
          <ConnectHint problemOf={problemOf} refused={refused} onDismiss={() => setRefused(null)} />
          <RemotePresence session={session} nodes={nodes} />
          <ExampleNote session={session} nodes={nodes} />
          {nodes.length === 0 && (
            <Panel position="top-center" className="empty-canvas">
              <p>
                <strong>Your canvas is empty.</strong> Add images (or drop or paste them here), add a generation node, and connect the
                images into it.
              </p>
            </Panel>
          )}
        </ReactFlow>
        <UploadTrayPanel uploads={uploads} />
        {draggingFiles && <DropHighlight rules={uploads.rules} />}
        <RunBar />
        <RunPanel nodes={nodes} />
      </div>
    </EditorContext.Provider></RunsContext.Provider>
  );
}
