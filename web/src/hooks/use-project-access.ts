// Which project a canvas page shows and the user's role in it, from the project lists (their own, then those
// shared with them: there is no single-project route). The canvas itself comes from the live document.
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, NETWORK_ERROR, type Project, type ProjectRole } from '../api/client';

export type ProjectAccessState =
  | { status: 'loading' }
  | { status: 'ready'; project: Project; role: ProjectRole }
  | { status: 'not-found' }
  | { status: 'error'; message: string };

export function useProjectAccess(projectId: string, userId: string) {
  const [state, setState] = useState<ProjectAccessState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const [projects, shared] = await Promise.all([api.GET('/api/user/project', { params: { query: { userId } } }), api.GET('/api/user/project/shared')]);
      if (!projects.data) return setState({ status: 'error', message: errorMessage(projects.error, 'Could not load the project') });
      const own = projects.data.find((p) => p.id === projectId);
      if (own) return setState({ status: 'ready', project: own, role: 'owner' });
      if (!shared.data) return setState({ status: 'error', message: errorMessage(shared.error, 'Could not load the project') });
      const sharedProject = shared.data.find((p) => p.id === projectId);
      setState(sharedProject ? { status: 'ready', project: sharedProject, role: sharedProject.role } : { status: 'not-found' });
    } catch {
      setState({ status: 'error', message: NETWORK_ERROR });
    }
  }, [projectId, userId]);

  useEffect(() => {
    void load();
  }, [load]);

  return { state, reload: load };
}
