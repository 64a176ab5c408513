// Loads a project (by listing the user's projects and those shared with them: there is no single-project
// route), the user's role in it, and its canvas.
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, NETWORK_ERROR, type Project, type ProjectRole } from '../api/client';
import { fromSavedEdge, fromSavedNode, type CanvasEdge, type CanvasNode } from '../canvas/model';

export interface LoadedCanvas {
  /** Absent until the first save creates the canvas. */
  id?: string;
  /** 0 for a canvas never saved (the first save sends `version: 0`). */
  version: number;
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

export type CanvasDocumentState =
  | { status: 'loading' }
  | { status: 'ready'; project: Project; role: ProjectRole; canvas: LoadedCanvas }
  | { status: 'not-found' }
  | { status: 'error'; message: string };

export function useCanvasDocument(projectId: string, userId: string) {
  const [state, setState] = useState<CanvasDocumentState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const [projects, shared, canvas] = await Promise.all([
        api.GET('/api/user/project', { params: { query: { userId } } }),
        api.GET('/api/user/project/shared'),
        api.GET('/api/user/project/canvas', { params: { query: { projectId } } }),
      ]);
      if (canvas.response.status === 404) return setState({ status: 'not-found' });
      if (!projects.data) return setState({ status: 'error', message: errorMessage(projects.error, 'Could not load the project') });
      if (canvas.error !== undefined || !canvas.response.ok) return setState({ status: 'error', message: errorMessage(canvas.error, 'Could not load the canvas') });
      const own = projects.data.find((p) => p.id === projectId);
      const sharedProject = own ? undefined : shared.data?.find((p) => p.id === projectId);
      if (!own && !shared.data) return setState({ status: 'error', message: errorMessage(shared.error, 'Could not load the project') });
      const project = own ?? sharedProject;
      if (!project) return setState({ status: 'not-found' });
      const saved = canvas.data ?? null;
      setState({
        status: 'ready',
        project,
        role: sharedProject?.role ?? 'owner',
        canvas: saved
          ? { id: saved.id, version: saved.version, nodes: saved.nodes.map(fromSavedNode), edges: saved.edges.map(fromSavedEdge) }
          : { version: 0, nodes: [], edges: [] },
      });
    } catch {
      setState({ status: 'error', message: NETWORK_ERROR });
    }
  }, [projectId, userId]);

  useEffect(() => {
    void load();
  }, [load]);

  return { state, reload: load };
}
