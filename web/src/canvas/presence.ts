// Presence on the live canvas (Yjs awareness, DESIGN.md §9): who is here, where their pointer is (flow
// coordinates, so it lands on the same spot of the canvas at any zoom) and which nodes they have selected.
// The fields are the contract's: `user: { id, name, color }`, `cursor: { x, y } | null`, `selection: string[]`.

export interface PresenceUser {
  id: string;
  name: string;
  color: string;
}

export interface Peer {
  /** The awareness client id: one per open tab. */
  clientId: number;
  user: PresenceUser;
  cursor: { x: number; y: number } | null;
  selection: string[];
}

/** Colours readable on both themes, one per person (chosen from the user id, so it is the same in every tab). */
const COLORS = ['#e5484d', '#f76b15', '#ad7f00', '#30a46c', '#0d74ce', '#6e56cf', '#d6409f', '#12a594'];

export function colorOf(userId: string): string {
  let hash = 0;
  for (let i = 0; i < userId.length; i++) hash = (Math.imul(hash, 31) + userId.charCodeAt(i)) >>> 0;
  return COLORS[hash % COLORS.length];
}

/** Up to two letters for an avatar: the initials of the name's first and last words (or the name's first letter). */
export function initialsOf(name: string): string {
  const words = name.trim().split(/[\s@._-]+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = [...words[0]][0];
  const last = words.length > 1 ? [...words[words.length - 1]][0] : '';
  return (first + last).toUpperCase();
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The other tabs' presence from awareness states (anything a peer sent, checked field by field: a state that is
 * not a presence is left out, a malformed cursor or selection is none), in client id order.
 */
export function peersOf(states: ReadonlyMap<number, unknown>, ownClientId: number): Peer[] {
  const peers: Peer[] = [];
  for (const [clientId, state] of states) {
    if (clientId === ownClientId || !isRecord(state) || !isRecord(state.user)) continue;
    const { id, name, color } = state.user;
    if (typeof id !== 'string' || typeof name !== 'string') continue;
    const cursor = isRecord(state.cursor) && Number.isFinite(state.cursor.x) && Number.isFinite(state.cursor.y) ? { x: state.cursor.x as number, y: state.cursor.y as number } : null;
    const selection = Array.isArray(state.selection) ? state.selection.filter((s): s is string => typeof s === 'string').slice(0, SELECTION_SHOWN) : [];
    peers.push({ clientId, user: { id, name: name.slice(0, 100), color: typeof color === 'string' && /^#[0-9a-f]{6}$/i.test(color) ? color : colorOf(id) }, cursor, selection });
  }
  return peers.sort((a, b) => a.clientId - b.clientId);
}

/** Selected ids peers show at most (./peersOf), and the characters of them a tab sends at most. */
const SELECTION_SHOWN = 1000;
const SELECTION_CHARS = 32_000;

/**
 * What of this tab's selection goes into its presence: what peers show at most, and small enough that a presence
 * update stays well under the service's COLLAB_MAX_PRESENCE_BYTES (default 64 KB), which closes the socket.
 */
export function selectionToSend(ids: readonly string[]): string[] {
  const sent: string[] = [];
  let chars = 0;
  for (const id of ids) {
    chars += id.length + 3; // quotes and a comma
    if (sent.length >= SELECTION_SHOWN || chars > SELECTION_CHARS) break;
    sent.push(id);
  }
  return sent;
}

/** The people among the peers, once each (several tabs of one person are one avatar). */
export function peopleOf(peers: readonly Peer[]): PresenceUser[] {
  const seen = new Map<string, PresenceUser>();
  for (const peer of peers) if (!seen.has(peer.user.id)) seen.set(peer.user.id, peer.user);
  return [...seen.values()];
}
