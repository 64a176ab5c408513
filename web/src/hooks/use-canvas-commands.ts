// What the canvas's shortcuts and context menus do (issue 19, point 1): select all; copy, cut, paste and duplicate
// nodes (canvas/clipboard.ts); delete; add a node of any kind (web/src/kinds/) at a spot, connected from nodes or
// into them through ports that fit, or not; zoom, fit and zoom to the selection. Every edit is one undo step, and new nodes land in view (hooks/use-placement.ts) and are
// selected. New nodes follow one placement rule (canvas/placement.ts): never on top of another node, a node with
// inputs right of them (and one feeding a node left of it); a duplicate goes beside its original, a paste at the
// pointer, each moved to the nearest free spot; a copied node keeps its inputs on its own canvas.
import { useReactFlow } from '@xyflow/react';
import { useCallback, useMemo, useRef, type RefObject } from 'react';
import { clipBounds, clipFromText, clipToText, copyNodes, inputsMinX, keptInputs, pasteClip, type Clip } from '../canvas/clipboard';
import type { LiveSession } from '../canvas/live-session';
import { linkPorts, type NodeType } from '../canvas/kinds';
import { createNode, newId, toSavedNode, type CanvasEdge, type CanvasNode } from '../canvas/model';
import { centeredAt, NODE_MARGIN, nodeRect, sizeOf, type Rect, type XY } from '../canvas/placement';
import { newNodeData } from '../kinds';
import type { FlowState } from './use-live-canvas';
import type { Placement } from './use-placement';

/** Space between nodes and a node made for them (right of its inputs, left of what it feeds). */
const GAP = 80;
export const FIT_OPTIONS = { padding: 0.2, maxZoom: 1 };

/** A node a new node is connected with, at one of its ports (its handle; undefined: the first that fits). */
export interface NodeEnd {
  nodeId: string;
  handle?: string | null;
}

export interface CanvasCommands {
  /** The nodes a command acts on: `ids` when given, else the selected nodes. */
  selectedIds: () => string[];
  selectAll: () => void;
  /** The clip text of the nodes (and the edges between them), remembered for the menu's Paste; null when there are none. */
  copy: (ids?: string[]) => string | null;
  /** Copies the nodes to the system clipboard (from a menu, outside a copy event). */
  copyToClipboard: (ids?: string[]) => void;
  /** Pastes a clip centred at `at` (flow), else at the pointer when it is on the canvas, else in the middle of the view. */
  paste: (clip: Clip, at?: XY) => void;
  /** Pastes what the system clipboard holds (when the browser lets us read it), else what this tab copied last. */
  /**
   * Pastes what the system clipboard holds at `at`: images (given to `images`, when the clipboard lets this page read
   * them), else copied nodes; what this tab copied last when the clipboard cannot be read.
   */
  pasteFromClipboard: (at?: XY, images?: (files: File[]) => void) => Promise<void>;
  duplicate: (ids?: string[]) => void;
  remove: (ids?: string[]) => void;
  /**
   * Adds a node of `type` centred at `at` (else in the middle of the view), with its kind's starting data, edges into
   * it from `sources` and from it into `targets`, each through the first ports that fit (an end none fits is left out).
   */
  addNode: (type: NodeType, at?: XY, sources?: NodeEnd[], targets?: NodeEnd[]) => void;
  /** `addNode` of a generation node, connected from the nodes `sources` and into the nodes `targets`. */
  addGeneration: (at?: XY, sources?: string[], targets?: string[]) => void;
  /** Adds a generation node to the right of `sources`, connected from each. */
  connectToNewGeneration: (sources: string[]) => void;
  zoomIn: () => void;
  zoomOut: () => void;
  zoomTo100: () => void;
  fit: () => void;
  zoomToSelection: () => void;
  /** Moves the view so that `at` (flow) is in its middle, at the same zoom (a click on the minimap). */
  centerOn: (at: XY) => void;
}

/** The images the system clipboard holds, as files; none when it holds none or this page may not read it. */
async function clipboardImages(): Promise<File[]> {
  try {
    const files: File[] = [];
    for (const item of await navigator.clipboard.read()) {
      const type = item.types.find((t) => t.startsWith('image/'));
      if (type) files.push(new File([await item.getType(type)], `pasted-image.${type.slice(6).replace(/[^a-z0-9]+/g, '') || 'png'}`, { type }));
    }
    return files;
  } catch {
    return []; // not allowed, or not supported: the text is tried next
  }
}

const duration = () => (window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 200);

export function useCanvasCommands(
  session: LiveSession,
  latest: RefObject<FlowState>,
  select: (ids: string[]) => void,
  placement: Placement,
  /** Told when a command moves the view (the first fit then leaves it alone). */
  onViewMoved: () => void,
): CanvasCommands {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const lastCopied = useRef<Clip | null>(null);

  const selectedIds = useCallback(() => latest.current.nodes.filter((n) => n.selected).map((n) => n.id), [latest]);
  const chosen = useCallback((ids?: string[]) => ids ?? selectedIds(), [selectedIds]);

  const clipOf = useCallback(
    (ids?: string[]) => copyNodes(latest.current.nodes, latest.current.edges, new Set(chosen(ids)), session.projectId),
    [latest, chosen, session],
  );

  const rectOf = useCallback(
    (id: string): Rect | undefined => {
      const node = latest.current.nodes.find((n) => n.id === id);
      return node ? nodeRect(node) : undefined;
    },
    [latest],
  );

  /** Pastes the clip with its bounds' top-left wanted at `topLeft` (moved to the nearest free spot), keeping its inputs on this canvas. */
  const pasteAt = useCallback(
    (clip: Clip, topLeft: XY) => {
      const bounds = clipBounds(clip);
      const inputs = keptInputs(clip, session.projectId, rectOf);
      const minX = inputsMinX(clip, inputs, rectOf, GAP);
      const pasted = pasteClip(clip, placement.placeGroup(bounds, topLeft, { minX }), newId, inputs);
      session.step();
      session.add(pasted);
      select(pasted.nodes.map((n) => n.id));
    },
    [placement, session, select, rectOf],
  );

  const addNode = useCallback(
    (type: NodeType, at?: XY, sources: NodeEnd[] = [], targets: NodeEnd[] = []) => {
      // Right of the nodes it takes inputs from, left of those it feeds.
      const fromRects = sources.flatMap(({ nodeId }) => rectOf(nodeId) ?? []);
      const toRects = targets.flatMap(({ nodeId }) => rectOf(nodeId) ?? []);
      const minX = fromRects.length > 0 ? Math.max(...fromRects.map((r) => r.x + r.width)) + GAP : undefined;
      const maxX = toRects.length > 0 ? Math.min(...toRects.map((r) => r.x)) - GAP : undefined;
      const node = createNode(type, placement.place(sizeOf(type), at, { minX, maxX }), newNodeData(type));
      const typeOf = (id: string) => latest.current.nodes.find((n) => n.id === id)?.type;
      const edges = [
        ...sources.flatMap(({ nodeId, handle }) => {
          const ports = linkPorts({ type: typeOf(nodeId), handle }, { type });
          return ports ? [{ id: newId('edge'), source: nodeId, target: node.id, ...ports }] : [];
        }),
        ...targets.flatMap(({ nodeId, handle }) => {
          const ports = linkPorts({ type }, { type: typeOf(nodeId), handle });
          return ports ? [{ id: newId('edge'), source: node.id, target: nodeId, ...ports }] : [];
        }),
      ];
      session.step();
      session.add({ nodes: [toSavedNode(node)], edges });
      select([node.id]);
    },
    [placement, session, select, latest, rectOf],
  );
  const addGeneration = useCallback(
    (at?: XY, sources: string[] = [], targets: string[] = []) =>
      addNode(
        'generation',
        at,
        sources.map((nodeId) => ({ nodeId })),
        targets.map((nodeId) => ({ nodeId })),
      ),
    [addNode],
  );

  return useMemo<CanvasCommands>(() => {
    const copy = (ids?: string[]) => {
      const clip = clipOf(ids);
      if (!clip) return null;
      lastCopied.current = clip;
      return clipToText(clip);
    };
    const paste = (clip: Clip, at?: XY) => {
      const bounds = clipBounds(clip);
      pasteAt(clip, centeredAt(at ?? placement.cursor() ?? placement.center(), bounds));
    };
    return {
      selectedIds,
      selectAll: () => select(latest.current.nodes.map((n) => n.id)),
      copy,
      copyToClipboard: (ids) => {
        const text = copy(ids);
        if (text) void navigator.clipboard?.writeText(text).catch(() => undefined); // this tab remembers it anyway
      },
      paste,
      pasteFromClipboard: async (at, images) => {
        if (images) {
          const files = await clipboardImages();
          if (files.length > 0) return images(files);
        }
        let clip: Clip | null = null;
        try {
          clip = clipFromText(await navigator.clipboard.readText());
        } catch {
          // Not allowed to read the clipboard: what this tab copied last.
        }
        clip ??= lastCopied.current;
        if (clip) paste(clip, at);
      },
      duplicate: (ids) => {
        // Beside the original: to its right, or below it when the copy keeps inputs from outside (their edges then
        // do not cross the original); the nearest free spot from there.
        const clip = clipOf(ids);
        if (!clip) return;
        const bounds = clipBounds(clip);
        const below = keptInputs(clip, session.projectId, rectOf).length > 0;
        pasteAt(clip, below ? { x: bounds.x, y: bounds.y + bounds.height + NODE_MARGIN } : { x: bounds.x + bounds.width + NODE_MARGIN, y: bounds.y });
      },
      remove: (ids) => {
        const nodes = chosen(ids);
        const edges = ids ? [] : latest.current.edges.filter((e) => e.selected).map((e) => e.id);
        if (nodes.length === 0 && edges.length === 0) return;
        void flow.deleteElements({ nodes: nodes.map((id) => ({ id })), edges: edges.map((id) => ({ id })) });
      },
      addNode,
      addGeneration,
      connectToNewGeneration: (sources) => {
        const rects = latest.current.nodes.filter((n) => sources.includes(n.id)).map(nodeRect);
        if (rects.length === 0) return;
        const right = Math.max(...rects.map((r) => r.x + r.width));
        const top = Math.min(...rects.map((r) => r.y));
        const bottom = Math.max(...rects.map((r) => r.y + r.height));
        addGeneration({ x: right + GAP + sizeOf('generation').width / 2, y: (top + bottom) / 2 }, sources);
      },
      zoomIn: () => (onViewMoved(), void flow.zoomIn({ duration: duration() })),
      zoomOut: () => (onViewMoved(), void flow.zoomOut({ duration: duration() })),
      centerOn: (at) => (onViewMoved(), void flow.setCenter(at.x, at.y, { zoom: flow.getZoom(), duration: duration() })),
      zoomTo100: () => (onViewMoved(), void flow.zoomTo(1, { duration: duration() })),
      fit: () => (onViewMoved(), void flow.fitView({ ...FIT_OPTIONS, duration: duration() })),
      zoomToSelection: () => {
        onViewMoved();
        const ids = selectedIds();
        void flow.fitView(ids.length > 0 ? { nodes: ids.map((id) => ({ id })), padding: 0.2, maxZoom: 2, duration: duration() } : { ...FIT_OPTIONS, duration: duration() });
      },
    };
  }, [clipOf, pasteAt, placement, selectedIds, select, latest, chosen, flow, addNode, addGeneration, onViewMoved, session, rectOf]);
}
