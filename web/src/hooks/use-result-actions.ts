// What the editor does with a result (issue 34 points 4 and 10): a result made into a new image node (its image's
// address, nothing uploaded again) beside the generation node it came from, or where it was dragged out to; and
// what the gallery asked for when it opened the canvas (canvas/result-handoff.ts): the node to show (selected,
// the view centred on it) or a prompt to reuse (a new generation node with that prompt and model, fed by the same
// images as the node it came from, beside it). Each addition is one undo step and is selected.
import { useNodesInitialized, useReactFlow, type ReactFlowInstance } from '@xyflow/react';
import { useCallback, useEffect, useRef, type DragEvent, type RefObject } from 'react';
import type { LiveSession } from '../canvas/live-session';
import { createNode, newId, toSavedEdge, toSavedNode, type CanvasEdge, type CanvasNode } from '../canvas/model';
import { nodeRect, sizeOf, type XY } from '../canvas/placement';
import { RESULT_DRAG_TYPE, takeHandedPrompt } from '../canvas/result-handoff';
import { newNodeData } from '../kinds';
import { navigate } from '../router';
import type { FlowState } from './use-live-canvas';
import type { Placement } from './use-placement';

/** Space between a node and a node made from it. */
const GAP = 80;

/** Resolves once every image inside the node `id` has loaded or failed, and xyflow has measured it again (two frames). */
async function nodeSettled(id: string): Promise<void> {
  const element = document.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  const pending = [...(element?.querySelectorAll('img') ?? [])].filter((img) => !img.complete);
  await Promise.all(pending.map((img) => new Promise((resolve) => (img.addEventListener('load', resolve, { once: true }), img.addEventListener('error', resolve, { once: true })))));
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}

/** Centres the view on the node once its images have loaded (an image makes its node taller). */
const centreOn = (flow: ReactFlowInstance<CanvasNode, CanvasEdge>, id: string) =>
  void nodeSettled(id).then(() => flow.fitView({ nodes: [{ id }], padding: 0.4, maxZoom: 1, duration: reducedMotion() ? 0 : 200 }));

const carriesResult = (event: DragEvent) => [...event.dataTransfer.types].includes(RESULT_DRAG_TYPE);
const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function useResultActions(
  projectId: string,
  session: LiveSession,
  latest: RefObject<FlowState>,
  select: (ids: string[]) => void,
  placement: Placement,
  /** Told when the view is moved to show a node (the remembered view then leaves it alone). */
  onViewMoved: () => void,
) {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();

  /** The centre of a node of `type` to the right of the node `beside`; undefined when there is no such node. */
  const besideOf = useCallback(
    (beside: string | null | undefined, type: 'upload' | 'generation'): XY | undefined => {
      const node = beside ? latest.current.nodes.find((n) => n.id === beside) : undefined;
      if (!node) return undefined;
      const r = nodeRect(node);
      return { x: r.x + r.width + GAP + sizeOf(type).width / 2, y: r.y + sizeOf(type).height / 2 };
    },
    [latest],
  );

  const imageNodeFrom = useCallback(
    (image: string, from: { beside?: string; at?: XY }) => {
      const node = createNode('upload', placement.place(sizeOf('upload'), from.at ?? besideOf(from.beside, 'upload')), { image });
      session.step();
      session.add({ nodes: [toSavedNode(node)], edges: [] });
      select([node.id]);
    },
    [placement, besideOf, session, select],
  );

  const onDragOver = (event: DragEvent) => {
    if (!carriesResult(event)) return false;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    return true;
  };
  /** A result dropped on the canvas: a new image node centred where it was let go. True when the drop was one. */
  const onDrop = (event: DragEvent) => {
    if (!carriesResult(event)) return false;
    event.preventDefault();
    const image = event.dataTransfer.getData(RESULT_DRAG_TYPE);
    if (image) imageNodeFrom(image, { at: flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }) });
    return true;
  };

  // What the gallery asked for, once the nodes are measured (a node is centred by its size).
  const measured = useNodesInitialized();
  const done = useRef(false);
  useEffect(() => {
    if (done.current || (!measured && latest.current.nodes.length > 0)) return;
    done.current = true;
    const search = new URLSearchParams(window.location.search);
    const show = search.get('node');
    const reuse = search.get('reuse') !== null ? takeHandedPrompt(projectId) : null;
    if (show === null && search.get('reuse') === null) return;
    navigate(window.location.pathname, { replace: true });
    let focus: string | undefined;
    if (reuse) {
      const node = createNode('generation', placement.place(sizeOf('generation'), besideOf(reuse.nodeId, 'generation')), {
        ...newNodeData('generation'),
        prompt: reuse.prompt,
        ...(reuse.model ? { model: reuse.model } : {}),
      });
      const inputs = latest.current.edges.filter((e) => e.target === reuse.nodeId);
      session.step();
      session.add({ nodes: [toSavedNode(node)], edges: inputs.map((e) => toSavedEdge({ ...e, id: newId('edge'), target: node.id })) });
      focus = node.id;
    } else if (show && latest.current.nodes.some((n) => n.id === show)) {
      focus = show;
    }
    if (!focus) return;
    select([focus]);
    onViewMoved();
    centreOn(flow, focus);
  }, [measured, projectId, latest, placement, besideOf, session, select, onViewMoved, flow]);

  return { imageNodeFrom, onDragOver, onDrop };
}

/**
 * On a read-only canvas (a viewer's): "Show on canvas" from the gallery (`?node=<id>`) centres the view on the node
 * once the nodes are measured (nothing is selectable there).
 */
export function useShowLinkedNode(onViewMoved: () => void) {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const measured = useNodesInitialized();
  const done = useRef(false);
  useEffect(() => {
    if (done.current || !measured) return;
    done.current = true;
    const id = new URLSearchParams(window.location.search).get('node');
    if (id === null) return;
    navigate(window.location.pathname, { replace: true });
    if (!flow.getNode(id)) return;
    onViewMoved();
    centreOn(flow, id);
  }, [measured, flow, onViewMoved]);
}
