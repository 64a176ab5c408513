// /projects/:id: finds the project and the user's role, opens its live document, and once it has synced shows
// the editor (owner and editor; only the owner may share) or the canvas read-only (a viewer, or anyone the service
// only lets read: others' changes still show live). The header says who else is here and how the connection is.
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useState } from 'react';
import type { Project, ProjectRole } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useLiveSession, useStore } from '../hooks/use-live-session';
import { useProjectAccess } from '../hooks/use-project-access';
import { useUser, type SessionUser } from '../hooks/use-session';
import { Link } from '../router';
import { connectionStatus } from '../canvas/connection';
import type { LiveSession } from '../canvas/live-session';
import { AppHeader } from './app-header';
import { CanvasEditor } from './canvas-editor';
import { LiveCanvasView } from './live-canvas-view';
import { ConnectionStatus } from './connection-status';
import { galleryPath, projectSpendPath } from '../paths';
import { PageStatus } from './page-status';
import { AccessNotice, accessText, RestoreNotice } from './people-notices';
import { PresenceAvatars } from './presence-avatars';
import { ProjectBreadcrumb } from './project-breadcrumb';
import { ProjectName } from './project-name';
import { ViewOnlyBadge } from './view-only-badge';

const NOT_FOUND = 'This project does not exist, or it is not shared with you.';
const NO_ACCESS = 'You no longer have access to this project.';
const BUSY = 'The server is busy: the canvas opens as soon as it has room. Trying again…';
const backToProjects = (
  <Link className="button primary" href="/projects">
    Back to projects
  </Link>
);

export default function CanvasPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state, reload } = useProjectAccess(projectId, user.id);
  useDocumentTitle(state.status === 'ready' ? state.project.name : 'Canvas');

  if (state.status === 'ready') return <LiveCanvasPage project={state.project} role={state.role} user={user} />;
  return (
    <>
      <AppHeader />
      {state.status === 'loading' && <PageStatus busy>Loading the canvas…</PageStatus>}
      {state.status === 'not-found' && <PageStatus actions={backToProjects}>{NOT_FOUND}</PageStatus>}
      {state.status === 'error' && (
        <PageStatus
          actions={
            <>
              <button type="button" className="button" onClick={() => void reload()}>
                Try again
              </button>
              {backToProjects}
            </>
          }
        >
          {state.message}
        </PageStatus>
      )}
    </>
  );
}

function LiveCanvasPage({ project, role, user }: { project: Project; role: ProjectRole; user: SessionUser }) {
  const session = useLiveSession(project.id, user);
  return session ? <LiveCanvas project={project} role={role} session={session} /> : <Loading project={project} />;
}

/** Until the document has synced; `busy` while the service has no room to open it (the session tries again by itself). */
function Loading({ project, session, busy = false }: { project: Project; session?: LiveSession; busy?: boolean }) {
  return (
    <div className="editor">
      <AppHeader>
        <ProjectBreadcrumb name={project.name} />
        {session && <ConnectionStatus session={session} />}
      </AppHeader>
      <PageStatus busy>{busy ? BUSY : 'Loading the canvas…'}</PageStatus>
    </div>
  );
}

function LiveCanvas({ project, role, session }: { project: Project; role: ProjectRole; session: LiveSession }) {
  const connection = useStore(session.connection);
  const access = useStore(session.access);
  // What the service lets this connection do, once it said: a role changed while here takes effect at once.
  const readOnly = connection.scope ? connection.scope === 'readonly' : role === 'viewer';
  const [name, setName] = useState(project.name); // renamed in the header by its owner

  // Leaving the page while the service has not acknowledged our changes asks first (they are kept only here).
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!readOnly && session.connection.get().unsynced > 0) event.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => window.removeEventListener('beforeunload', beforeUnload);
  }, [session, readOnly]);

  if (connection.denied || access?.access === 'none') {
    // Removed (or the project deleted) while here: said in words, not as a project that never existed.
    const gone = access?.access === 'none' ? `${accessText(access)} You no longer have access to it.` : connection.loaded ? NO_ACCESS : NOT_FOUND;
    return (
      <>
        <AppHeader />
        <PageStatus actions={backToProjects}>{gone}</PageStatus>
      </>
    );
  }
  if (!connection.loaded) return <Loading project={project} session={session} busy={connectionStatus(connection) === 'busy'} />;
  return (
    <div className="editor">
      <AppHeader>
        <ProjectBreadcrumb name={name}>
          <ProjectName projectId={project.id} name={name} canRename={role === 'owner'} onRenamed={setName} />
        </ProjectBreadcrumb>
        {readOnly && <ViewOnlyBadge />}
        {readOnly && (
          <Link className="button ghost" href={galleryPath(project.id)}>
            Gallery
          </Link>
        )}
        {readOnly && (
          <Link className="button ghost" href={projectSpendPath(project.id)} title="What this project's generations cost, per person">
            Spend
          </Link>
        )}
        <PresenceAvatars session={session} />
        <ConnectionStatus session={session} readOnly={readOnly} />
      </AppHeader>
      <AccessNotice session={session} />
      <RestoreNotice session={session} canEdit={!readOnly} />
      <ReactFlowProvider>
        {readOnly ? <LiveCanvasView session={session} /> : <CanvasEditor project={{ ...project, name }} session={session} canShare={role === 'owner'} />}
      </ReactFlowProvider>
    </div>
  );
}
