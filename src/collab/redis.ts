// Several instances share live documents through Redis (COLLAB_REDIS_URL): @hocuspocus/extension-redis relays each
// open document's updates and awareness between the instances that have it open, and a Redis lock lets only one
// of them store a given change. Without the URL the service is one instance and needs none of this: import this
// module only when the URL is set, so the Redis client is never loaded otherwise. The extension connects (two
// clients, publish and subscribe) when it is constructed and disconnects in its onDestroy hook.
//
// The link to Redis (docs/deploy.md "Redis"): `RedisRelay` watches both clients and says when the link goes down and
// when it is back, once each (one log line, `onLink` listeners: the metric, the editors' `relay` message, the
// catch-up of ../live-documents.ts); the clients' own errors are caught here and never printed by ioredis. While the
// link is down each instance goes on alone: nothing is published (it would wait in the client's queue), a document
// opened meanwhile is subscribed once the link is back, and a store takes no Redis lock (the database is the one
// record: every change is appended there by the instance that received it). When the link is back every open
// document announces its state again, so the instances that hold it exchange what each lacks.
//
// Every key and channel starts with the prefix: COLLAB_REDIS_PREFIX, or one derived from the database's identity
// (`defaultRedisPrefix`), so two deployments on one Redis never see each other's documents. Pub/sub ignores Redis's
// database number: the prefix is the only isolation of channels.
import { createHash } from 'node:crypto';
import { SkipFurtherHooksError } from '@hocuspocus/common';
import { Redis } from '@hocuspocus/extension-redis';
import type {
  afterLoadDocumentPayload,
  afterUnloadDocumentPayload,
  beforeBroadcastStatelessPayload,
  Document,
  onAwarenessUpdatePayload,
  onChangePayload,
  onStoreDocumentPayload,
} from '@hocuspocus/server';
import { redisConnection } from './redis-url.js';

export { redisConnection } from './redis-url.js';

/** The start of every prefix: COLLAB_REDIS_PREFIX's default is this and a hash of the database's identity. */
export const REDIS_PREFIX = 'image-canvas';

/**
 * The default prefix of a deployment: `image-canvas:` and the first 12 hex digits of SHA-256 of the database's
 * identity (src/db/identity.ts: the cluster's system identifier and the database's name), so every instance on one
 * database agrees on it and a copy restored elsewhere gets another.
 */
export function defaultRedisPrefix(databaseIdentity: string): string {
  return `${REDIS_PREFIX}:${createHash('sha256').update(databaseIdentity).digest('hex').slice(0, 12)}`;
}

export interface RelayLog {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
  debug(o: object, m: string): void;
}

export interface RelayOptions {
  url: string;
  prefix: string;
  log: RelayLog;
}

/** What is used here of an ioredis client (the extension's `pub` and `sub`). */
interface Client {
  readonly status: string;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'ready' | 'close' | 'end', listener: () => void): unknown;
  ping(): Promise<unknown>;
  disconnect(reconnect?: boolean): void;
}

/** The extension with its link watched (see the top of this file). */
export class RedisRelay extends Redis {
  private linkUp = false;
  /** Whether the link was ever up, or a failure was already said (the first connection's failure is an outage too). */
  private said = false;
  private lastError: Error | undefined;
  private readonly listeners: ((up: boolean) => void)[] = [];
  /** Documents loaded while the link was down: subscribed once it is back. */
  private readonly unsubscribed = new Map<string, Document>();
  private confirming = false;
  private destroyed = false;
  private readonly log: RelayLog;

  constructor({ url, prefix, log }: RelayOptions) {
    const { host, port, options } = redisConnection(url);
    // maxRetriesPerRequest null: a command waits for the link rather than failing after 20 reconnections (the
    // extension's reply subscription, made once at construction, would otherwise fail for good when Redis is down at
    // start). Commands are not issued while the link is down (below), so nothing piles up.
    super({ host, port, options: { ...options, maxRetriesPerRequest: null }, prefix });
    this.log = log;
    this.watch('publish', this.client('pub'));
    this.watch('subscribe', this.client('sub'));
    // Redlock reports every failed attempt as an `error` event (a lock held by another instance too); unheard, it
    // would throw out of the attempt. The link's state is said by the clients.
    this.redlock.on('error', (err: Error) => log.debug({ err }, 'live: a Redis lock was not taken'));
  }

  /** Whether both connections to Redis are up (changes reach the other instances). */
  up(): boolean {
    return this.linkUp;
  }

  /** `listener(up)` on each change of the link, after its log line. */
  onLink(listener: (up: boolean) => void): void {
    this.listeners.push(listener);
  }

  private watch(role: 'publish' | 'subscribe', client: Client) {
    client.on('error', (err: Error) => {
      this.lastError = err;
      if (!this.linkUp && !this.said) this.down();
      else this.log.debug({ err, client: role }, 'live: Redis client error');
    });
    client.on('ready', () => this.check());
    client.on('close', () => this.check());
    client.on('end', () => this.check());
  }

  private client(which: 'pub' | 'sub'): Client {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- ioredis's own types (Redis | Cluster) are wider
    return this[which] as unknown as Client;
  }

  private both = () => this.client('pub').status === 'ready' && this.client('sub').status === 'ready';

  private check() {
    if (this.destroyed) return;
    if (this.linkUp && !this.both()) this.down();
    else if (!this.linkUp && this.both() && !this.confirming) void this.confirm();
  }

  /**
   * Both clients are ready: once the subscriptions ioredis makes again on reconnecting are in place (a PING on the
   * same connection answers after them), the link is up.
   */
  private async confirm() {
    this.confirming = true;
    try {
      await Promise.all([this.client('sub').ping(), this.client('pub').ping()]);
    } catch {
      return; // gone again: the next `ready` confirms anew
    } finally {
      this.confirming = false;
    }
    if (this.destroyed || this.linkUp || !this.both()) return;
    const wasDown = this.said;
    this.linkUp = true;
    this.said = true;
    this.lastError = undefined;
    this.log.info({ redis: 'up', prefix: this.configuration.prefix }, wasDown ? 'live: the link to Redis is back; open documents catch up' : 'live: connected to Redis');
    for (const listener of this.listeners) listener(true);
    await this.announceAll();
  }

  private down() {
    const wasUp = this.linkUp;
    this.linkUp = false;
    this.said = true;
    this.log.warn(
      { redis: 'down', ...(this.lastError && { err: this.lastError }) },
      wasUp
        ? 'live: the link to Redis is down; each instance goes on alone (editors on other instances do not see changes made here until it is back)'
        : 'live: Redis cannot be reached; each instance goes on alone until it can',
    );
    for (const listener of this.listeners) listener(false);
  }

  /** The link is back: documents loaded meanwhile subscribe; the others announce their state again. */
  private async announceAll() {
    const loaded = new Map(this.unsubscribed);
    this.unsubscribed.clear();
    for (const [documentName, document] of loaded) {
      await super.afterLoadDocument({ documentName, document } as afterLoadDocumentPayload).catch((err: unknown) => {
        this.log.warn({ err, projectId: documentName }, 'live: a document could not subscribe to Redis; it catches up from the database');
      });
    }
    for (const [documentName, document] of this.instance?.documents ?? []) {
      // What the extension does after a change here: publish the document's state vector; each instance holding
      // the document answers with what it lacks and asks for what it has (hocuspocus's sync step 1 and 2).
      if (!loaded.has(documentName)) await super.onChange({ documentName, document, transactionOrigin: { source: 'local' } } as onChangePayload);
    }
  }

  override async afterLoadDocument(data: afterLoadDocumentPayload) {
    if (!this.linkUp) {
      this.unsubscribed.set(data.documentName, data.document);
      return;
    }
    return super.afterLoadDocument(data);
  }

  override async afterUnloadDocument(data: afterUnloadDocumentPayload) {
    this.unsubscribed.delete(data.documentName);
    return super.afterUnloadDocument(data);
  }

  override async onChange(data: onChangePayload) {
    if (this.linkUp) await super.onChange(data);
  }

  override async onAwarenessUpdate(data: onAwarenessUpdatePayload) {
    if (this.linkUp) return super.onAwarenessUpdate(data);
  }

  override async beforeBroadcastStateless(data: beforeBroadcastStatelessPayload) {
    return this.linkUp ? super.beforeBroadcastStateless(data) : 0; // 0: received by no one
  }

  override async onStoreDocument(data: onStoreDocumentPayload) {
    // No lock while the link is down: the store compacts what the database already holds, as without Redis.
    if (!this.linkUp) return;
    try {
      await super.onStoreDocument(data);
    } catch (err) {
      // Another instance holds the lock (it stores the document), or the lock could not be asked for: this store is
      // skipped, as the extension does, with an error without a message (hocuspocus prints a hook error's message).
      if (!(err instanceof SkipFurtherHooksError)) this.log.warn({ err, projectId: data.documentName }, 'live: the Redis lock could not be taken; the document is compacted later');
      throw new SkipFurtherHooksError('');
    }
  }

  override async onDestroy() {
    this.destroyed = true;
    if (this.linkUp) return super.onDestroy();
    // Redis is down: QUIT would wait for it.
    this.client('pub').disconnect(false);
    this.client('sub').disconnect(false);
  }
}

/** The Redis extension for the Hocuspocus server, on the Redis at `url`, its keys and channels under `prefix`. */
export function redisExtension(url: string, prefix: string = REDIS_PREFIX, log: RelayLog = silent): RedisRelay {
  return new RedisRelay({ url, prefix, log });
}

const silent: RelayLog = { info() {}, warn() {}, debug() {} };
