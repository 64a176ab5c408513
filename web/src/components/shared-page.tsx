// /shared/:token: a project shown by its read-only link, to anyone (no sign-in): its name and its canvas, which
// may be panned and zoomed but not changed, and follows edits as they happen (the live document, read-only:
// hooks/use-link-canvas.ts). A revoked, replaced or unknown link says it is no longer valid, also while open.
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, NETWORK_ERROR } from '../api/client';
import { fromSavedEdge, fromSavedNode, type CanvasEdge, type CanvasNode } from '../canvas/model';
import { useDocumentTitle } from '../hooks/use-document-title';
import { AppHeader } from './app-header';
import { useLinkCanvas } from '../hooks/use-link-canvas';
import { LinkCanvasView } from './link-canvas-view';
import { PageStatus } from './page-status';
import { ViewOnlyBadge } from './view-only-badge';

type State =
  | { status: 'loading' }
  | { status: 'ready'; projectId: string; name: string; nodes: CanvasNode[]; edges: CanvasEdge[] }
  | { status: 'invalid' }
  | { status: 'error'; message: string };

export default function SharedPage({ token }: { token: string }) {
  const [state, setState] = useState<State>({ status: 'loading' });
  useDocumentTitle(state.status === 'ready' ? state.name : 'Shared canvas');

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const { data, error, response } = await api.GET('/api/shared/{token}', { params: { path: { token } } });
      if (response.status === 404 || response.status === 400) return setState({ status: 'invalid' });
      if (!data) return setState({ status: 'error', message: errorMessage(error, 'Could not load the canvas') });
      setState({
        status: 'ready',
        projectId: data.project.id,
        name: data.project.name,
        nodes: data.canvas?.nodes.map(fromSavedNode) ?? [],
        edges: data.canvas?.edges.map(fromSavedEdge) ?? [],
      });
    } catch {
      setState({ status: 'error', message: NETWORK_ERROR });
    }
  }, [token]);

  useEffect(() => {
    void load();
  }, [load]);
  const live = useLinkCanvas(state.status === 'ready' ? state.projectId : null, token);

  if (state.status === 'ready' && !live.ended) {
    return (
      <div className="editor">
        <AppHeader>
          <h1 className="shared-title">{state.name}</h1>
          <ViewOnlyBadge />
        </AppHeader>
        <LinkCanvasView nodes={state.nodes} edges={state.edges} rendered={live.rendered} memory={`shared:${token}`} />
      </div>
    );
  }
  return (
    <>
      <AppHeader />
      {state.status === 'loading' && <PageStatus busy>Loading the canvas…</PageStatus>}
      {(state.status === 'invalid' || live.ended) && <PageStatus>This link is no longer valid. Ask whoever shared it for a new one.</PageStatus>}
      {state.status === 'error' && (
        <PageStatus actions={<button type="button" className="button" onClick={() => void load()}>Try again</button>}>
          {state.message}
        </PageStatus>
      )}
    </>
  );
}
