// The signed-in user's projects (newest first), with create, rename and delete.
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, NETWORK_ERROR, type Project } from '../api/client';
import { track } from '../analytics';

export type ProjectsState = { status: 'loading' } | { status: 'ready'; projects: Project[] } | { status: 'error'; message: string };

/** Runs an API call; returns its data or throws an Error with the service's message. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>, fallback: string): Promise<T> {
  let result;
  try {
    result = await request;
  } catch {
    throw new Error(NETWORK_ERROR);
  }
  if (result.error !== undefined || !result.response.ok) throw new Error(errorMessage(result.error, fallback));
  return result.data as T;
}

/** The service lists projects oldest first (as the original system did); the page shows the newest first (ties: by id, descending). */
const newestFirst = (a: Project, b: Project) => b.createdDate.localeCompare(a.createdDate) || b.id.localeCompare(a.id);

export function useProjects(userId: string) {
  const [state, setState] = useState<ProjectsState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const projects = await call(api.GET('/api/user/project', { params: { query: { userId } } }), 'Could not load your projects');
      setState({ status: 'ready', projects: [...projects].sort(newestFirst) });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, [userId]);

  useEffect(() => {
    void load();
  }, [load]);

  const update = (change: (projects: Project[]) => Project[]) =>
    setState((s) => (s.status === 'ready' ? { status: 'ready', projects: change(s.projects) } : s));

  const create = useCallback(async (name: string): Promise<Project> => {
    const project = await call(api.POST('/api/user/project', { body: { userId, name } }), 'Could not create the project');
    track('project_created');
    update((projects) => [project, ...projects]);
    return project;
  }, [userId]);

  const rename = useCallback(async (projectId: string, name: string): Promise<void> => {
    const project = await call(api.PATCH('/api/user/project/{projectId}', { params: { path: { projectId } }, body: { name } }), 'Could not rename the project');
    update((projects) => projects.map((p) => (p.id === project.id ? project : p)));
  }, []);

  const remove = useCallback(async (projectId: string): Promise<void> => {
    await call(api.DELETE('/api/user/project/{projectId}', { params: { path: { projectId } } }), 'Could not delete the project');
    update((projects) => projects.filter((p) => p.id !== projectId));
  }, []);

  return { state, reload: load, create, rename, remove };
}
