// This tab's one follower of the signed-in user's job events (docs/api.md "Generation jobs": GET
// /api/generations/events), through the typed client's `followJobEvents`, shared by every node of the tab. It is
// open only while held — a node holds it from asking for a job until the job has ended — so a tab that runs nothing
// keeps no stream (the service caps them per user). The client resumes a dropped stream with Last-Event-ID, so
// nothing is missed while it is held; listeners are told (`onGap`) when events may have been missed all the same —
// the stream stopped (refused, signed out, ended by the service) or reconnected before any event gave it an id to
// resume from — so they can rely on the live document instead. No timers here: the client waits before
// reconnecting, and nothing is read again.
import { createImageCanvasClient, ImageCanvasError, type GenerationJob, type ImageCanvasClient } from '../../../client/index.js';

export interface JobEventsListener {
  /** A change of one of the user's jobs, in order. */
  onJob(job: GenerationJob): void;
  /** Events may have been missed since the stream was opened: follow the document for how jobs end. */
  onGap(): void;
}

export class JobEvents {
  private readonly listeners = new Set<JobEventsListener>();
  private readonly client: Pick<ImageCanvasClient, 'followJobEvents'>;
  private holds = 0;
  private following: AbortController | undefined;
  private open = false;
  /** The last connection attempt failed (the client waits before the next). */
  private failing = false;
  /** An event id came on the current stream (so a reconnection resumes from it). */
  private resumable = false;
  private waiters: Array<(open: boolean) => void> = [];

  /** `retryMs`: the typed client's first wait before reconnecting (its default, 1 s, unless given). */
  constructor(
    baseUrl: string,
    private readonly onUnauthorized: () => void = () => {},
    private readonly retryMs?: number,
  ) {
    // Its requests are watched, so that a connection that fails is known at once (`ready`), not only after retries.
    this.client = createImageCanvasClient({
      baseUrl,
      fetch: (request) =>
        fetch(request).then(
          (response) => {
            if (!response.ok) this.failed();
            return response;
          },
          (err: unknown) => {
            this.failed();
            throw err;
          },
        ),
    });
  }

  subscribe(listener: JobEventsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Keeps the stream open (opening it now if it is not) until the returned release is called. */
  hold(): () => void {
    this.holds++;
    if (!this.following) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.stop();
    };
  }

  /**
   * True once the stream is open — every change from then on will come — or false as soon as a connection attempt
   * fails (at once while the client waits to try again) or when nothing holds it.
   */
  ready(): Promise<boolean> {
    if (this.open) return Promise.resolve(true);
    if (!this.following || this.failing) return Promise.resolve(false);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private settle(open: boolean) {
    for (const resolve of this.waiters.splice(0)) resolve(open);
  }

  /** A connection attempt failed (the client tries again after a while). */
  private failed() {
    this.open = false;
    this.failing = true;
    this.settle(false);
  }

  private gap() {
    for (const listener of [...this.listeners]) listener.onGap();
  }

  private start() {
    const abort = new AbortController();
    this.following = abort;
    this.resumable = false;
    this.failing = false;
    let opened = false;
    this.client
      .followJobEvents({
        signal: abort.signal,
        ...(this.retryMs !== undefined ? { retryMs: this.retryMs } : {}),
        onOpen: () => {
          if (opened && !this.resumable) this.gap(); // reconnected with nothing to resume from
          opened = true;
          this.open = true;
          this.failing = false;
          this.settle(true);
        },
        onEvent: (job) => {
          this.resumable = true;
          for (const listener of [...this.listeners]) listener.onJob(job);
        },
      })
      .catch((err: unknown) => {
        if (err instanceof ImageCanvasError && err.status === 401) this.onUnauthorized();
      })
      .finally(() => {
        if (this.following !== abort) return;
        // Stopped by the service (refused, or ended saying why): the next hold opens it again.
        this.following = undefined;
        this.open = false;
        this.settle(false);
        this.gap();
      });
  }

  private stop() {
    this.following?.abort();
    this.following = undefined;
    this.open = false;
    this.settle(false);
  }
}
