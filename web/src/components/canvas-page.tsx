// /projects/:id: loads the project and its canvas, then hands them to the editor.
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCanvasDocument } from '../hooks/use-canvas-document';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useUser } from '../hooks/use-session';
import { Link } from '../router';
import { AppHeader } from './app-header';
import { CanvasEditor } from './canvas-editor';
import { PageStatus } from './page-status';

export default function CanvasPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state, reload } = useCanvasDocument(projectId, user.id);
  useDocumentTitle(state.status === 'ready' ? state.project.name : 'Canvas');

  if (state.status === 'ready') {
    return (
      <ReactFlowProvider>
        <CanvasEditor project={state.project} initial={state.canvas} />
      </ReactFlowProvider>
    );
  }
  return (
    <>
      <AppHeader />
      {state.status === 'loading' && <PageStatus busy>Loading the canvas…</PageStatus>}
      {state.status === 'not-found' && (
        <PageStatus actions={<Link className="button primary" href="/projects">Back to projects</Link>}>
          This project does not exist, or it is not yours.
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
