// /projects/:id: loads the project, the user's role and its canvas, then hands them to the editor (owner and
// editor; only the owner may share) or shows them read-only (viewer: nothing is ever sent).
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCanvasDocument } from '../hooks/use-canvas-document';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useUser } from '../hooks/use-session';
import { Link } from '../router';
import { AppHeader } from './app-header';
import { CanvasEditor } from './canvas-editor';
import { CanvasView } from './canvas-view';
import { ProjectBreadcrumb } from './project-breadcrumb';
import { ViewOnlyBadge } from './view-only-badge';
import { PageStatus } from './page-status';

export default function CanvasPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state, reload } = useCanvasDocument(projectId, user.id);
  useDocumentTitle(state.status === 'ready' ? state.project.name : 'Canvas');

  if (state.status === 'ready' && state.role === 'viewer') {
    return (
      <div className="editor">
        <AppHeader>
          <ProjectBreadcrumb name={state.project.name} />
          <ViewOnlyBadge />
        </AppHeader>
        <CanvasView nodes={state.canvas.nodes} edges={state.canvas.edges} />
      </div>
    );
  }
  if (state.status === 'ready') {
    return (
      <ReactFlowProvider>
        <CanvasEditor project={state.project} initial={state.canvas} canShare={state.role === 'owner'} />
      </ReactFlowProvider>
    );
  }
  return (
    <>
      <AppHeader />
      {state.status === 'loading' && <PageStatus busy>Loading the canvas…</PageStatus>}
      {state.status === 'not-found' && (
        <PageStatus actions={<Link className="button primary" href="/projects">Back to projects</Link>}>
          This project does not exist, or it is not shared with you.
        </PageStatus>
      )}
      {state.status === 'error' && (
        <PageStatus actions={<button type="button" className="button" onClick={() => void reload()}>Try again</button>}>
          {state.message}
        </PageStatus>
      )}
    </>
  );
}
