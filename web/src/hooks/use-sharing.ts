// Sharing (docs/api.md "Sharing"): the projects shared with the signed-in user, and — for a project's owner —
// its members and its read-only link.
import { useCallback, useEffect, useState } from 'react';
import { api, type ProjectMember, type SharedProject, type ShareRole } from '../api/client';
import { call } from './use-projects';

export type SharedProjectsState = { status: 'loading' } | { status: 'ready'; projects: SharedProject[] } | { status: 'error'; message: string };

/** Projects shared with the user, as the service lists them (oldest first). */
export function useSharedProjects() {
  const [state, setState] = useState<SharedProjectsState>({ status: 'loading' });
  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      setState({ status: 'ready', projects: await call(api.GET('/api/user/project/shared'), 'Could not load the projects shared with you') });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { state, reload: load };
}

export type MembersState =
  | { status: 'loading' }
  | { status: 'ready'; owner: { email: string; name: string }; members: ProjectMember[] }
  | { status: 'error'; message: string };

/** The address of a read-only link's page (the API's `url` is the JSON behind it). */
export const sharedPageUrl = (token: string) => `${window.location.origin}/shared/${encodeURIComponent(token)}`;

/** A project's owner and members, with invite and remove, and its read-only link (create, revoke). */
export function useProjectSharing(projectId: string) {
  const [state, setState] = useState<MembersState>({ status: 'loading' });
  const path = { params: { path: { projectId } } };

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const { owner, members } = await call(api.GET('/api/user/project/{projectId}/members', { params: { path: { projectId } } }), 'Could not load the members');
      setState({ status: 'ready', owner, members });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, [projectId]);
  useEffect(() => {
    void load();
  }, [load]);

  const invite = async (email: string, role: ShareRole): Promise<ProjectMember> => {
    const member = await call(api.POST('/api/user/project/{projectId}/members', { ...path, body: { email, role } }), 'Could not invite');
    setState((s) => {
      if (s.status !== 'ready') return s;
      const known = s.members.some((m) => m.email === member.email);
      return { ...s, members: known ? s.members.map((m) => (m.email === member.email ? member : m)) : [...s.members, member] };
    });
    return member;
  };

  const remove = async (email: string): Promise<void> => {
    await call(api.DELETE('/api/user/project/{projectId}/members/{email}', { params: { path: { projectId, email } } }), 'Could not remove the member');
    setState((s) => (s.status === 'ready' ? { ...s, members: s.members.filter((m) => m.email !== email) } : s));
  };

  /** Makes a new link (the old one stops working) and answers its page's address: shown only now. */
  const createLink = async (): Promise<string> => {
    const { token } = await call(api.POST('/api/user/project/{projectId}/share-link', path), 'Could not make a link');
    return sharedPageUrl(token);
  };

  const revokeLink = async (): Promise<void> => {
    await call(api.DELETE('/api/user/project/{projectId}/share-link', path), 'Could not revoke the link');
  };

  return { state, reload: load, invite, remove, createLink, revokeLink };
}
