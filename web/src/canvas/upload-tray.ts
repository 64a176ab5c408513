// The uploads of this tab that have no node to show them (yet): files on their way to new nodes (a node is
// added only when its file is stored, so a failed or offline upload leaves nothing behind), and every file
// refused or failed, with what can be done (downscale an image over the limit and send it again, try again,
// dismiss). State of this tab only, never saved and never part of undo.
import type { XY } from './live-doc';
import type { UploadSource } from './editor-context';

/**
 * Where a stored file goes: into an existing node (its image replaced), or a new node at `position`, its output
 * connected into the node `feeds` (if still there).
 */
export type UploadDestination = { nodeId: string } | { position: XY; feeds?: string };

export interface TrayEntry {
  id: string;
  file: File;
  destination: UploadDestination;
  source: UploadSource;
  /** `queued`: waiting its turn to be sent (canvas/upload-pacer.ts), or for the upload limit (`retryAt`). */
  state: 'queued' | 'uploading' | 'downscaling' | 'refused' | 'failed';
  /** 0–1 while uploading. */
  progress?: number;
  /** Why it was refused or failed, in words. */
  message?: string;
  /** A queued entry held by the upload limit: when it goes on by itself (ms since the epoch; a 429's Retry-After). */
  retryAt?: number;
  /** What the person may do about it: make the image smaller and send it again, or send it again as it is. */
  offer?: 'downscale' | 'retry';
}

export class UploadTray {
  private entries: readonly TrayEntry[] = [];
  private readonly listeners = new Set<() => void>();
  private next = 0;

  get = (): readonly TrayEntry[] => this.entries;

  add(entry: Omit<TrayEntry, 'id'>): string {
    const id = `upload-${++this.next}`;
    this.set([...this.entries, { ...entry, id }]);
    return id;
  }

  /** Replaces fields of an entry (undefined values remove them); nothing when it was dismissed meanwhile. */
  update(id: string, patch: Partial<Omit<TrayEntry, 'id'>>): void {
    if (!this.entries.some((e) => e.id === id)) return;
    this.set(this.entries.map((e) => (e.id === id ? { ...e, ...patch } : e)));
  }

  remove(id: string): void {
    if (this.entries.some((e) => e.id === id)) this.set(this.entries.filter((e) => e.id !== id));
  }

  find = (id: string): TrayEntry | undefined => this.entries.find((e) => e.id === id);

  private set(entries: readonly TrayEntry[]): void {
    this.entries = entries;
    for (const listener of this.listeners) listener();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
