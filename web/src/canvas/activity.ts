// What is happening to a node right now (upload progress, a running generation, the last error): state of
// this browser tab only, never saved and never part of undo. A small store, so a progress tick re-renders
// only the node it concerns.
import { useSyncExternalStore } from 'react';

/**
 * A generation job this tab follows in the node — one it started, or the node's running job a refused start named
 * (its state then unknown, `null`, until the document or its events show it) — as the service last said (the
 * document's job is shown over it).
 */
export interface LocalJob {
  id: string;
  status: 'queued' | 'running' | null;
  queuePosition: number | null;
  startedAt: string | null;
}

export interface NodeActivity {
  uploadProgress?: number;
  /** This tab is asking the service for a job (POST /api/generations has not answered yet). */
  starting?: boolean;
  /** The job this tab follows in the node, until it ends. */
  job?: LocalJob;
  /** The job this tab followed in the node was canceled (shown as *Canceled* until the node runs again or changes). */
  canceled?: { jobId: string };
  /** A cancel of the node's job is on its way. */
  canceling?: boolean;
  /** Why the last cancel of job `jobId` was refused (shown while that job is). */
  cancelError?: { jobId: string; message: string };
  /** Why the last generation this tab asked for was refused or failed; `retryAt` (epoch ms): a 429's Retry-After. */
  generationError?: { error: string; details?: string; status?: number; retryAt?: number };
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

  /** Whether this tab is starting or following a job of the node. */
  isGenerating = (id: string): boolean => this.get(id).starting === true || this.get(id).job !== undefined;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

export function useActivity(store: ActivityStore, id: string): NodeActivity {
  return useSyncExternalStore(store.subscribe, () => store.get(id));
}
