// The live mode's bookkeeping that needs no server: how editors are grouped into rooms, which nodes each editor
// of a room edits, what each edit writes, what counts as acknowledged and as lost, and how a frame from the
// server is recognised as an acknowledgement. Pure functions and small classes, no I/O (the live load client,
// live-editors.ts, does the rest).

// ---------------------------------------------------------------------------------------------------------
// Rooms

/**
 * LOAD_ROOM_SIZE: one size ("5"), a list cycled through ("1,3,5"), or "mix" (1,2,3,4,5 cycled: rooms of every
 * size from a lone editor to five). Sizes are 1…50 (a project's member limit is 50 by default).
 */
export function parseRoomSizes(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return [5];
  if (raw.trim() === 'mix') return [1, 2, 3, 4, 5];
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 50)) {
    throw new Error(`LOAD_ROOM_SIZE must be "mix" or whole numbers 1…50 separated by commas, got "${raw}"`);
  }
  return sizes;
}

export interface RoomPlace {
  room: number;
  /** The editor's place in its room: 0 is the project's owner, the others are invited as editors. */
  slot: number;
}

export interface RoomShape {
  index: number;
  /** Editors the room holds when full. */
  capacity: number;
  /** The index of the room's first editor (its owner). */
  first: number;
}

/**
 * Rooms in order, each filled before the next one starts: editor i of a run is always in the same room and slot,
 * whatever the step, so a step of N editors uses the rooms of editors 0…N-1 (the last one possibly not full).
 */
export class RoomLayout {
  readonly rooms: RoomShape[] = [];
  private readonly places: RoomPlace[] = [];

  constructor(private readonly sizes: number[]) {}

  /** Makes sure editors 0…count-1 have a room; answers the rooms added. */
  extend(count: number): RoomShape[] {
    const added: RoomShape[] = [];
    while (this.places.length < count) {
      const index = this.rooms.length;
      const room = { index, capacity: this.sizes[index % this.sizes.length], first: this.places.length };
      this.rooms.push(room);
      added.push(room);
      for (let slot = 0; slot < room.capacity; slot++) this.places.push({ room: index, slot });
    }
    return added;
  }

  place(editor: number): RoomPlace {
    const p = this.places[editor];
    if (!p) throw new Error(`editor ${editor} has no room yet`);
    return p;
  }

  /** How many rooms editors 0…count-1 take. */
  roomsFor(count: number): number {
    return count === 0 ? 0 : this.place(count - 1).room + 1;
  }
}

/**
 * The nodes an editor in `slot` of a room of `capacity` edits: every capacity-th node of the room's nodes
 * sorted by id. No two editors of a room write the same field of the same node, so each field has one writer
 * and its final value must be that writer's last acknowledged one (or a later one not yet acknowledged).
 */
export function slotNodes<T>(sorted: T[], capacity: number, slot: number): T[] {
  return sorted.filter((_, k) => k % capacity === slot);
}

// ---------------------------------------------------------------------------------------------------------
// Edits and what was acknowledged

export type Field = 'position' | 'prompt';

/** A position as one comparable text (numbers print exactly as stored, so equal text = equal value). */
export function positionKey(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'x' in value && 'y' in value) return `${String(value.x)},${String(value.y)}`;
  return `?${JSON.stringify(value) ?? 'undefined'}`;
}

/** The comparable text of a prompt value (a string, or what else a view holds). */
export function promptKey(value: unknown): string {
  return typeof value === 'string' ? value : `?${JSON.stringify(value) ?? 'undefined'}`;
}

/**
 * A move: the node's original position shifted right by 0.01 × the editor's edit number, so every move an
 * editor ever makes of a node writes a value of its own (and identifies the edit on arrival).
 */
export function movedPosition(base: { x: number; y: number }, seq: number): { x: number; y: number } {
  return { x: Math.round((base.x + seq / 100) * 100) / 100, y: base.y };
}

/** A prompt edit: the node's original prompt with the edit's id and send time (client clock, ms) after it. */
export function editedPrompt(base: string, editId: string, sentAtMs: number): string {
  return `${base} · edit ${editId} at ${sentAtMs.toFixed(1)} ms`;
}

/**
 * One field of one node, written by one editor: the value of its last acknowledged edit, and the values sent
 * after it (not acknowledged yet). A view of the document is right when it holds the acknowledged value or one
 * sent later (an edit applied whose acknowledgement did not arrive); anything else — an older value, another
 * value, a missing node — is a lost edit.
 */
export class Track {
  private ackedKey: string;
  private ackedSeq = 0;
  private readonly sent = new Map<string, number>();

  constructor(initialKey: string) {
    this.ackedKey = initialKey;
  }

  get acknowledged(): string {
    return this.ackedKey;
  }

  /** An edit with the editor's number `seq` (increasing) wrote `key`. */
  send(key: string, seq: number): void {
    this.sent.set(key, seq);
  }

  /** The edit `seq` that wrote `key` was acknowledged (acknowledgements of one writer arrive in order). */
  ack(key: string, seq: number): void {
    if (seq < this.ackedSeq) return;
    this.ackedSeq = seq;
    this.ackedKey = key;
    for (const [k, s] of this.sent) if (s <= seq) this.sent.delete(k);
  }

  accepts(key: string): boolean {
    return key === this.ackedKey || (this.sent.get(key) ?? -1) > this.ackedSeq;
  }

  /** After a check: what is stored is the new starting point (sent values not stored will not come back). */
  rebase(key: string): void {
    const seq = this.sent.get(key);
    if (seq !== undefined && seq > this.ackedSeq) this.ackedSeq = seq;
    this.ackedKey = key;
    this.sent.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Frames from the server

/** Hocuspocus message types (as @hocuspocus/provider numbers them). */
export const MESSAGE_SYNC_STATUS = 8;

/**
 * The message type of a frame from the server and, for a SyncStatus, whether the update was applied (1) or
 * refused (0). A frame is `varString documentName, varUint type, …` (lib0 encoding); undefined when malformed.
 */
export function readFrameHead(frame: Uint8Array): { documentName: string; type: number; status?: number } | undefined {
  let pos = 0;
  const varUint = (): number | undefined => {
    let value = 0;
    let mult = 1;
    for (let i = 0; i < 8; i++) {
      if (pos >= frame.length) return undefined;
      const byte = frame[pos++];
      value += (byte & 0x7f) * mult;
      if (byte < 0x80) return value;
      mult *= 128;
    }
    return undefined;
  };
  const length = varUint();
  if (length === undefined || pos + length > frame.length) return undefined;
  const documentName = new TextDecoder().decode(frame.subarray(pos, pos + length));
  pos += length;
  const type = varUint();
  if (type === undefined) return undefined;
  if (type !== MESSAGE_SYNC_STATUS) return { documentName, type };
  // The server writes a varUint (0 or 1), the provider reads a varInt: the same single byte for both values.
  const status = varUint();
  return status === undefined ? undefined : { documentName, type, status };
}

// ---------------------------------------------------------------------------------------------------------
// Numbers

/** Nearest-rank percentile of sorted values (NaN when there are none). */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export const sortedOf = (xs: number[]): Float64Array => Float64Array.from(xs).sort();

/** The percentiles of a batch of edits from its raw figures (arrival latencies, acknowledgements, timer lags). */
export function percentilesOf(samples: { latencies: number[]; acks: number[]; lags: number[] }) {
  const lat = sortedOf(samples.latencies);
  const acks = sortedOf(samples.acks);
  const lags = sortedOf(samples.lags);
  return {
    arrivals: lat.length,
    p50Ms: percentile(lat, 0.5),
    p90Ms: percentile(lat, 0.9),
    p99Ms: percentile(lat, 0.99),
    maxMs: lat.length ? lat[lat.length - 1] : NaN,
    ackP50Ms: percentile(acks, 0.5),
    ackP99Ms: percentile(acks, 0.99),
    timerLagP99Ms: percentile(lags, 0.99),
    timerLagMaxMs: lags.length ? lags[lags.length - 1] : NaN,
  };
}
