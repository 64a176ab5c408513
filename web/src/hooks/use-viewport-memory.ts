// The view of a canvas (issue 19, point 2): zoom and pan are remembered per project in this browser
// (localStorage, keyed by the project's id — the editor's and a viewer's page share it —, or by a read-only link's
// token; a version's preview remembers nothing) and restored when the canvas opens again. Only a canvas with
// nothing remembered is fitted, and that fit waits for the nodes' images: an image that loads makes its node
// taller, so the view is fitted once the nodes are measured and again when their images have loaded (or failed),
// unless someone moved the view meanwhile.
import { useNodesInitialized, useReactFlow, type Viewport } from '@xyflow/react';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { FIT_OPTIONS } from './use-canvas-commands';

const keyOf = (projectId: string) => `image-canvas:viewport:${projectId}`;
/** How long the fit waits for images at most (a slow image does not hold the view for ever). */
const IMAGE_WAIT_MS = 15_000;

/** The remembered view of a project, if any (anything unreadable counts as nothing). */
export function rememberedViewport(projectId: string | null): Viewport | null {
  if (projectId === null) return null;
  try {
    const value = JSON.parse(localStorage.getItem(keyOf(projectId)) ?? 'null') as Partial<Viewport> | null;
    if (!value || ![value.x, value.y, value.zoom].every((n) => typeof n === 'number' && Number.isFinite(n)) || value.zoom! <= 0) return null;
    return { x: value.x!, y: value.y!, zoom: value.zoom! };
  } catch {
    return null;
  }
}

/** Resolves when every image inside the nodes has loaded or failed (or after IMAGE_WAIT_MS). */
function imagesSettled(root: HTMLElement | null): Promise<void> {
  const pending = [...(root?.querySelectorAll<HTMLImageElement>('.react-flow__node img') ?? [])].filter((img) => !img.complete);
  const settled = pending.map((img) => new Promise<void>((resolve) => {
    img.addEventListener('load', () => resolve(), { once: true });
    img.addEventListener('error', () => resolve(), { once: true });
  }));
  return Promise.race([Promise.all(settled).then(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, IMAGE_WAIT_MS))]);
}

/** Two frames: a loaded image changes its node's size, which xyflow measures before the next paint. */
const afterLayout = () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));

/** `projectId`: the key the view is remembered under (null: not remembered, only fitted). */
export function useViewportMemory(projectId: string | null, pane: RefObject<HTMLElement | null>, hasNodes: boolean) {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const [remembered] = useState(() => rememberedViewport(projectId));
  const [needsFit] = useState(() => remembered === null && hasNodes);
  const initialized = useNodesInitialized();
  const fitted = useRef(false);
  const mounted = useRef(true);
  /** Whether the person moved the view (a drag, the wheel, a key): a late fit would then undo their move. */
  const moved = useRef(false);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (!needsFit || fitted.current || !initialized) return;
    fitted.current = true;
    void (async () => {
      await flow.fitView(FIT_OPTIONS);
      await imagesSettled(pane.current);
      await afterLayout();
      if (mounted.current && !moved.current) await flow.fitView(FIT_OPTIONS);
    })();
  }, [needsFit, initialized, flow, pane]);

  // xyflow passes the event of a move a person made, none for one made by code (a fit).
  const onMoveStart = useCallback((event: unknown) => {
    if (event) moved.current = true;
  }, []);

  /** Keyboard zooms and fits are moves of the person's too. */
  const touched = useCallback(() => {
    moved.current = true;
  }, []);

  const onMoveEnd = useCallback(
    (_event: unknown, viewport: Viewport) => {
      if (projectId === null) return;
      try {
        localStorage.setItem(keyOf(projectId), JSON.stringify({ x: viewport.x, y: viewport.y, zoom: viewport.zoom }));
      } catch {
        // Storage full or refused: the view is simply not remembered.
      }
    },
    [projectId],
  );

  return { defaultViewport: remembered ?? undefined, onMoveStart, onMoveEnd, touched };
}
