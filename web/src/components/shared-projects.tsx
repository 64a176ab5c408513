// "Shared with me" on the projects page: the projects others shared with the user, with their owner and the
// user's role, a thumbnail and when each was last edited, in the page's order and search; each opens the
// project's canvas (read-only for a viewer). Shown once there is at least one.
import type { SharedProject } from '../api/client';
import type { ProjectActivity } from '../hooks/use-project-activity';
import { useSharedProjects } from '../hooks/use-sharing';
import { lastEdited } from '../projects-order';
import { Link } from '../router';
import { LastEdited } from './last-edited';
import { LoadError } from './load-error';
import { ProjectThumbnail } from './project-thumbnail';

const ROLE_TEXT = { editor: 'Can edit', viewer: 'View only' } as const;

interface Props {
  /** The page's search and order. */
  arrange: (projects: SharedProject[]) => SharedProject[];
  activity: ReadonlyMap<string, ProjectActivity>;
  activityLoaded: boolean;
}

export function SharedProjects({ arrange, activity, activityLoaded }: Props) {
  const { state, reload } = useSharedProjects();

  if (state.status === 'loading' || (state.status === 'ready' && state.projects.length === 0)) return null;
  return (
    <section className="shared-projects" aria-labelledby="shared-heading">
      <h2 id="shared-heading">Shared with me</h2>
      {state.status === 'error' ? (
        <LoadError message={state.message} onRetry={() => void reload()} />
      ) : (
        <ul className="project-list" aria-label="Shared with me">
          {arrange(state.projects).map((project) => {
            const href = `/projects/${encodeURIComponent(project.id)}`;
            return (
              <li key={project.id} className="project-item with-thumbnail">
                <ProjectThumbnail projectId={project.id} href={href} version={activity.get(project.id)?.version} ready={activityLoaded} />
                <div className="project-main">
                  <Link className="project-name" href={href}>
                    {project.name}
                  </Link>
                  <span className="muted small" title={project.owner.email}>
                    Shared by {project.owner.name ? `${project.owner.name} (${project.owner.email})` : project.owner.email}
                  </span>
                  <LastEdited at={lastEdited(project, activity)} />
                </div>
                <div className="row">
                  {/* The role as data, not a class: `editor` is the canvas page's full-height layout class. */}
                  <span className="badge role" data-role={project.role}>{ROLE_TEXT[project.role]}</span>
                  <Link className="button" href={href} aria-label={`Open ${project.name}`}>
                    Open
                  </Link>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
