// What is happening to a node right now (upload progress, a running generation, the last error): state of
// this browser tab only, never saved and never part of undo. A small store, so a progress tick re-renders
// only the node it concerns.
import { useSyncExternalStore } from 'react';

export interface NodeActivity {
  uploadProgress?: number;
  uploadError?: string;
  generatingSince?: number;
  generationError?: { error: string; details?: string; status?: number };
  /** What the model said about its result (e.g. the offline engine naming the operations it applied). */
  modelText?: string;
}

const NONE: NodeActivity = Object.freeze({});

export class ActivityStore {
  private readonly activities = new Map<string, NodeActivity>();
  private readonly listeners = new Set<() => void>();

  get = (id: string): NodeActivity => this.activities.get(id) ?? NONE;

  /** Merges `patch` into the node's activity (undefined values remove a field). */
  update(id: string, patch: Partial<NodeActivity>): void {
    const next: NodeActivity = { ...this.get(id), ...patch };
    for (const key of Object.keys(next) as (keyof NodeActivity)[]) if (next[key] === undefined) delete next[key];
    if (Object.keys(next).length === 0) this.activities.delete(id);
    else this.activities.set(id, next);
    for (const listener of this.listeners) listener();
  }

  isGenerating = (id: string): boolean => this.get(id).generatingSince !== undefined;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

export function useActivity(store: ActivityStore, id: string): NodeActivity {
  return useSyncExternalStore(store.subscribe, () => store.get(id));
}
