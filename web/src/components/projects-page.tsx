// /projects: the user's projects with a thumbnail of each canvas and when it was last edited, sorted (last edited,
// name, created) and searched by name; create (stay, or open), rename, delete, open; start one from a template; the
// projects shared with the user (open only: rename, delete and sharing are the owner's).
import { useEffect, useMemo, useState } from 'react';
import { api, type TemplateSummary } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useProjectActivity } from '../hooks/use-project-activity';
import { templateCanvas } from '../hooks/use-templates';
import { call, useProjects } from '../hooks/use-projects';
import { useUser } from '../hooks/use-session';
import { useMonthSpend } from '../hooks/use-spend';
import { arrange, lastEdited, SORT_LABELS, type ProjectSort } from '../projects-order';
import { navigate } from '../router';
import '../projects.css';
import { AppHeader } from './app-header';
import { ProjectCreateForm, type CreateOptions } from './project-create-form';
import { ProjectItem } from './project-item';
import { SharedProjects } from './shared-projects';
import { TemplatesRow } from './templates-row';

const SORT_KEY = 'image-canvas:projects-sort';
const isSort = (value: unknown): value is ProjectSort => typeof value === 'string' && value in SORT_LABELS;

function storedSort(): ProjectSort {
  try {
    const value = localStorage.getItem(SORT_KEY);
    return isSort(value) ? value : 'edited';
  } catch {
    return 'edited';
  }
}

export function ProjectsPage() {
  useDocumentTitle('Projects');
  const user = useUser();
  const { state, reload, create, rename, remove } = useProjects(user.id);
  const { activity, loaded: activityLoaded, reload: reloadActivity } = useProjectActivity();
  // One request for the page (shared with the header's account menu): each card's "$0.12 spent".
  const spend = useMonthSpend();
  const spentByProject = useMemo(() => new Map(spend?.projects.map((p) => [p.projectId, p.usd])), [spend]);
  const [sort, setSort] = useState<ProjectSort>(storedSort);
  const [query, setQuery] = useState('');
  const [created, setCreated] = useState<{ id: string; name: string } | null>(null);
  const [exampleFailed, setExampleFailed] = useState(false);

  useEffect(() => {
    try {
      localStorage.setItem(SORT_KEY, sort);
    } catch {
      // Not kept: the page still sorts.
    }
  }, [sort]);

  const onCreate = async (name: string, { open, example }: CreateOptions) => {
    const project = await create(name);
    setExampleFailed(false);
    if (example) {
      // The project exists either way: an example that could not be added only leaves its canvas empty.
      const added = await call(api.POST('/api/user/project/{projectId}/example', { params: { path: { projectId: project.id } } }), 'Could not add the example').then(
        () => true,
        () => false,
      );
      if (!added) setExampleFailed(true);
    }
    if (open) return navigate(`/projects/${encodeURIComponent(project.id)}`);
    setQuery(''); // so the new project shows
    setCreated({ id: project.id, name: project.name });
    void reloadActivity();
  };

  /** A new project named after the template, with the template's nodes and edges (read now) as its first canvas. */
  const onStartFromTemplate = async (template: TemplateSummary) => {
    const { nodes, edges } = await templateCanvas(template.id);
    const project = await create(template.name);
    try {
      await call(api.POST('/api/user/project/canvas', { body: { projectId: project.id, nodes, edges, version: 0 } }), 'Could not copy the template');
    } catch (err) {
      await remove(project.id).catch(() => undefined); // no empty project left behind
      throw err;
    }
    navigate(`/projects/${encodeURIComponent(project.id)}`);
  };

  const projects = useMemo(() => (state.status === 'ready' ? state.projects : []), [state]);
  const shown = useMemo(() => arrange(projects, { sort, query, activity }), [projects, sort, query, activity]);
  const ready = state.status === 'ready';

  return (
    <>
      <AppHeader />
      <main className="page">
        <div className="page-heading">
          <h1>Projects</h1>
          <ProjectCreateForm onCreate={onCreate} offerExample={ready && projects.length === 0} />
        </div>
        <p role="status" className="visually-hidden">
          {created ? `Created “${created.name}”.` : ''}
        </p>
        {exampleFailed && (
          <p className="notice error" role="alert">
            The project was created, but the example could not be added to it.
          </p>
        )}
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
        {ready && projects.length === 0 && (
          <div className="empty">
            <h2>No projects yet</h2>
            <p className="muted">Give your first project a name above and press Create and open. It can start with a short example that shows how the canvas works.</p>
          </div>
        )}
        {ready && projects.length > 0 && (
          <>
            <div className="project-controls">
              <label className="project-search">
                <span className="visually-hidden">Search projects</span>
                <input className="input" type="search" placeholder="Search projects" value={query} onChange={(e) => setQuery(e.target.value)} />
              </label>
              <label className="project-sort">
                Sort by{' '}
                <select className="input" value={sort} onChange={(e) => isSort(e.target.value) && setSort(e.target.value)}>
                  {Object.entries(SORT_LABELS).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            {shown.length === 0 ? (
              <p className="muted">No project’s name holds “{query.trim()}”.</p>
            ) : (
              <ul className="project-list" aria-label="Your projects">
                {shown.map((project) => (
                  <ProjectItem
                    key={project.id}
                    project={project}
                    editedAt={lastEdited(project, activity)}
                    version={activity.get(project.id)?.version}
                    thumbnailReady={activityLoaded}
                    highlighted={project.id === created?.id}
                    spentUsd={spentByProject.get(project.id)}
                    onRename={rename}
                    onDelete={remove}
                  />
                ))}
              </ul>
            )}
          </>
        )}
        <SharedProjects arrange={(shared) => arrange(shared, { sort, query, activity })} activity={activity} activityLoaded={activityLoaded} />
      </main>
    </>
  );
}
