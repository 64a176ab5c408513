// A project's generations (GET /api/projects/:id/generations, newest first; members only): those of one node —
// the variants strip under a generation node — and the gallery's pages, searched by words of the prompt.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type ProjectGeneration, type ProjectGenerationsPage } from '../api/client';
import { call } from './use-projects';

export type GenerationsState =
  | { status: 'loading'; items: ProjectGeneration[] }
  | { status: 'ready'; items: ProjectGeneration[]; nextCursor: string | null }
  | { status: 'error'; items: ProjectGeneration[]; message: string };

/** How many variants the strip under a node shows (the newest). */
const STRIP_SIZE = 24;
/** A gallery page. */
const PAGE_SIZE = 24;

export function listProjectGenerations(projectId: string, query: { nodeId?: string; q?: string; model?: string; cursor?: string; limit: number }, signal?: AbortSignal): Promise<ProjectGenerationsPage> {
  return call(api.GET('/api/projects/{id}/generations', { params: { path: { id: projectId }, query }, signal }), 'Could not load the generations');
}

/**
 * The node's generations, newest first, read again whenever `refresh` changes (the node's current image: a new
 * result, or an earlier one made current). The list read last stays shown while the next is read.
 */
export function useNodeGenerations(projectId: string, nodeId: string, refresh: unknown) {
  const [state, setState] = useState<GenerationsState>({ status: 'loading', items: [] });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ status: 'loading', items: s.items }));
    listProjectGenerations(projectId, { nodeId, limit: STRIP_SIZE }, abort.signal).then(
      (page) => setState({ status: 'ready', items: page.items, nextCursor: page.nextCursor }),
      (err: Error) => !abort.signal.aborted && setState((s) => ({ status: 'error', items: s.items, message: err.message })),
    );
    return () => abort.abort();
  }, [projectId, nodeId, refresh, attempt]);

  return { state, reload: useCallback(() => setAttempt((n) => n + 1), []) };
}

/** The gallery: the first page for `q` and `model` (a new one starts over), then `loadMore` appends the next. */
export function useGallery(projectId: string, q: string, model = '') {
  const [state, setState] = useState<GenerationsState>({ status: 'loading', items: [] });
  const [attempt, setAttempt] = useState(0);
  const more = useRef<AbortController | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    more.current?.abort();
    setState({ status: 'loading', items: [] });
    listProjectGenerations(projectId, { q: q.trim() || undefined, model: model || undefined, limit: PAGE_SIZE }, abort.signal).then(
      (page) => setState({ status: 'ready', items: page.items, nextCursor: page.nextCursor }),
      (err: Error) => !abort.signal.aborted && setState({ status: 'error', items: [], message: err.message }),
    );
    return () => abort.abort();
  }, [projectId, q, model, attempt]);

  const loadMore = useCallback(() => {
    if (state.status !== 'ready' || !state.nextCursor) return;
    const { items, nextCursor } = state;
    const abort = new AbortController();
    more.current = abort;
    setState({ status: 'loading', items });
    listProjectGenerations(projectId, { q: q.trim() || undefined, model: model || undefined, cursor: nextCursor, limit: PAGE_SIZE }, abort.signal).then(
      (page) => setState({ status: 'ready', items: [...items, ...page.items.filter((g) => !items.some((i) => i.id === g.id))], nextCursor: page.nextCursor }),
      // A failed "Load more" keeps the list and its cursor, so it can be tried again.
      (err: Error) => !abort.signal.aborted && setState({ status: 'error', items, message: err.message }),
    );
  }, [projectId, q, model, state]);

  return { state, loadMore, reload: useCallback(() => setAttempt((n) => n + 1), []) };
}
