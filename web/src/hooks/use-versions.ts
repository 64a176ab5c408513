// History of a canvas (docs/api.md "History"): its restore points (the service makes them while it changes) and
// named versions, one version's canvas (a read-only preview), and restoring one (a new change of the live
// document, which everyone sees; the canvas as it was is kept as a version first).
import { api, type components } from '../api/client';
import { call } from './use-projects';

export type CanvasVersion = components['schemas']['CanvasVersion'];
export type VersionCanvas = components['schemas']['CanvasVersionPreview']['canvas'];

const byProject = (projectId: string) => ({ params: { path: { projectId } } });
const byVersion = (projectId: string, versionId: string) => ({ params: { path: { projectId, versionId } } });

/** Newest first. */
export async function listVersions(projectId: string): Promise<CanvasVersion[]> {
  return (await call(api.GET('/api/user/project/{projectId}/versions', byProject(projectId)), 'Could not load the history')).versions;
}

/** Keeps the canvas as it is now under a name. */
export async function nameVersion(projectId: string, name: string): Promise<CanvasVersion> {
  return (await call(api.POST('/api/user/project/{projectId}/versions', { ...byProject(projectId), body: { name } }), 'Could not name this version')).version;
}

export function getVersion(projectId: string, versionId: string): Promise<{ version: CanvasVersion; canvas: VersionCanvas }> {
  return call(api.GET('/api/user/project/{projectId}/versions/{versionId}', byVersion(projectId, versionId)), 'Could not open this version');
}

export async function restoreVersion(projectId: string, versionId: string): Promise<void> {
  await call(api.POST('/api/user/project/{projectId}/versions/{versionId}/restore', byVersion(projectId, versionId)), 'Could not restore this version');
}
