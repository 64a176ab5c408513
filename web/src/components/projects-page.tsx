// /projects: the user's projects, newest first; create, rename, delete, open; start one from a template; the
// projects shared with the user (open only: rename, delete and sharing are the owner's).
import { api, type Template } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { call, useProjects } from '../hooks/use-projects';
import { useUser } from '../hooks/use-session';
import { navigate } from '../router';
import { AppHeader } from './app-header';
import { ProjectCreateForm } from './project-create-form';
import { ProjectItem } from './project-item';
import { SharedProjects } from './shared-projects';
import { TemplatesRow } from './templates-row';

export function ProjectsPage() {
  useDocumentTitle('Projects');
  const user = useUser();
  const { state, reload, create, rename, remove } = useProjects(user.id);

  const onCreate = async (name: string) => {
    const project = await create(name);
    navigate(`/projects/${encodeURIComponent(project.id)}`);
  };

  /** A new project named after the template, with the template's nodes and edges as its first canvas. */
  const onStartFromTemplate = async (template: Template) => {
    const project = await create(template.templateName);
    try {
      const { nodes, edges } = template.canvas;
      await call(api.POST('/api/user/project/canvas', { body: { projectId: project.id, nodes, edges, version: 0 } }), 'Could not copy the template');
    } catch (err) {
      await remove(project.id).catch(() => undefined); // no empty project left behind
      throw err;
    }
    navigate(`/projects/${encodeURIComponent(project.id)}`);
  };

  return (
    <>
      <AppHeader />
      <main className="page">
        <div className="page-heading">
          <h1>Projects</h1>
          <ProjectCreateForm onCreate={onCreate} />
        </div>
        <TemplatesRow onStart={onStartFromTemplate} />
        {state.status === 'loading' && (
          <p role="status" className="muted">
            <span className="spinner small" aria-hidden="true" /> Loading your projects…
          </p>
        )}
        {state.status === 'error' && (
          <div className="notice error" role="alert">
            <p>{state.message}</p>
            <button type="button" className="button" onClick={() => void reload()}>
              Try again
            </button>
          </div>
        )}
        {state.status === 'ready' && state.projects.length === 0 && (
          <div className="empty">
            <h2>No projects yet</h2>
            <p className="muted">Give your first project a name above and press Create project.</p>
          </div>
        )}
        {state.status === 'ready' && state.projects.length > 0 && (
          <ul className="project-list" aria-label="Your projects">
            {state.projects.map((project) => (
              <ProjectItem key={project.id} project={project} onRename={rename} onDelete={remove} />
            ))}
          </ul>
        )}
        <SharedProjects />
      </main>
    </>
  );
}
