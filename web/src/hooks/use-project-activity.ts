// When each of the user's projects (own and shared) was last edited, and its canvas version
// (GET /api/user/project/activity, docs/api.md "Thumbnails and last edited"). SPEC's project list keeps its
// fields, so this comes from its own route. Not essential: when it cannot be read, projects show their creation.
import { useCallback, useEffect, useState } from 'react';
import { api, type components } from '../api/client';
import { call } from './use-projects';

export type ProjectActivity = components['schemas']['ProjectActivity'];

export function useProjectActivity() {
  const [activity, setActivity] = useState<ReadonlyMap<string, ProjectActivity>>(new Map());
  /** The first answer came (or failed): thumbnails wait for it, to ask for the version it names. */
  const [loaded, setLoaded] = useState(false);
  const load = useCallback(async () => {
    try {
      const rows = await call(api.GET('/api/user/project/activity'), 'Could not read when your projects were edited');
      setActivity(new Map(rows.map((row) => [row.projectId, row])));
    } catch {
      // Shown without "last edited" (the creation date stays).
    } finally {
      setLoaded(true);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { activity, loaded, reload: load };
}
