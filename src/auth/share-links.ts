// A project's read-only link (src/services/sharing.ts): its token is 256 random bits shown once; only its SHA-256 is
// stored and looked up. One definition for the REST page (GET /api/shared/:token) and the live socket, which lets a
// link's holder follow the canvas read-only (src/collab/extensions/authentication.ts).
import { createHash } from 'node:crypto';

/** What a link token we made looks like: 32 bytes in base64url, no padding. */
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The stored hash of a link token, or null for a text that is not one (never looked up). */
export const linkHashOf = (token: string): string | null => (LINK_TOKEN.test(token) ? createHash('sha256').update(token).digest('hex') : null);
