// Paces this tab's uploads (hooks/use-uploads.ts): a few at once, the rest queued in the upload tray in the order
// they were added; when the service says the person is over the upload limit (429), the file goes back to its
// place in the queue and nothing more is sent until the service's Retry-After has passed (or, without one, a
// growing pause), then the queue goes on by itself. A file is never dropped for the limit.

/** What the pacer reads and writes of an upload tray entry (canvas/upload-tray.ts's TrayEntry). */
export interface PacedEntry {
  id: string;
  state: string;
  retryAt?: number;
}

/** The part of the upload tray (canvas/upload-tray.ts's UploadTray) the pacer uses. */
export interface PacedTray {
  get(): readonly PacedEntry[];
  /** Replaces fields of an entry (undefined values remove them); nothing when it was dismissed meanwhile. */
  update(id: string, patch: { state?: 'queued' | 'uploading'; progress?: number; message?: undefined; offer?: undefined; retryAt?: number }): void;
}

/** Uploads one tab sends at once. */
export const UPLOADS_AT_ONCE = 3;

/** Without a Retry-After: 2 s, doubling with each refusal in a row, at most a minute. */
const backoffMs = (refusals: number) => Math.min(60_000, 2_000 * 2 ** Math.max(0, refusals - 1));

export class UploadPacer {
  private running = 0;
  /** No upload starts before this (ms since the epoch): the service's Retry-After. */
  private until = 0;
  /** 429s in a row, for the pause when the service gave no Retry-After. */
  private refusals = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  /**
   * `start(id)` sends the entry's file and settles when it is done with it, whatever the outcome (it calls
   * `limited` for a 429 and `sent` when stored).
   */
  constructor(
    private readonly tray: PacedTray,
    private readonly start: (id: string) => Promise<void>,
    private readonly atOnce = UPLOADS_AT_ONCE,
  ) {}

  /** Queues the entry (a new file, a retry, a downscaled copy) and starts what may start. */
  enqueue(id: string): void {
    this.tray.update(id, { state: 'queued', progress: undefined, message: undefined, offer: undefined, retryAt: this.waiting() ? this.until : undefined });
    this.pump();
  }

  /** The service refused the entry for the upload limit: back to its place in the queue, all wait until then. */
  limited(id: string, retryAfterSeconds: number | undefined): void {
    this.refusals++;
    const until = Date.now() + (retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : backoffMs(this.refusals));
    this.until = Math.max(this.until, until);
    this.tray.update(id, { state: 'queued', progress: undefined, retryAt: this.until });
    this.markWaiting();
  }

  /** A file was stored: the limit let it through. */
  sent(): void {
    this.refusals = 0;
  }

  /** The editor is open: the queue runs. */
  open(): void {
    this.closed = false;
    this.pump();
  }

  /** The editor closed: nothing more is sent (uploads already on their way finish on their own). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private waiting(): boolean {
    return Date.now() < this.until;
  }

  /** Every queued entry says until when it waits; the queue goes on by itself then. */
  private markWaiting(): void {
    for (const entry of this.tray.get()) if (entry.state === 'queued' && entry.retryAt !== this.until) this.tray.update(entry.id, { retryAt: this.until });
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, this.until - Date.now());
  }

  private pump(): void {
    if (this.closed) return;
    if (this.waiting()) return this.markWaiting();
    for (const entry of this.tray.get()) if (entry.state === 'queued' && entry.retryAt !== undefined) this.tray.update(entry.id, { retryAt: undefined });
    while (this.running < this.atOnce) {
      const next = this.tray.get().find((e) => e.state === 'queued');
      if (!next) return;
      this.running++;
      this.tray.update(next.id, { state: 'uploading', progress: 0, retryAt: undefined });
      void this.start(next.id).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }
}
