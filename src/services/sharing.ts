// Sharing (docs/api.md "Sharing"): the owner invites people by email as `editor` (reads and writes the canvas)
// or `viewer` (reads it), and may make one read-only link. Only the owner changes members and the link; a member
// may read the member list and leave. Anyone without a role gets `404 Project not found`, whether or not the
// project exists; a member asking for an owner-only change gets `403 Forbidden` (they know the project exists).
// A link's token is 256 random bits; only its SHA-256 is stored, so it is shown once, when it is made.
import { createHash, randomBytes } from 'node:crypto';
import type { Transactions, Tx } from '../db/index.js';
import type { Member, MemberRole, ProjectAccess, SharedProjectRow, SharingRepository } from '../db/repositories/index.js';
import { forbidden, invalidRequest, isAppError, memberNotFound, notFound, projectNotFound } from '../errors.js';
import type { CanvasService } from './canvas.js';
import { isUuid } from '../ids.js';

/** The signed-in user: roles are matched by their email. */
export interface Caller {
  id: string;
  email: string;
}

export interface MemberList {
  owner: { email: string; name: string };
  members: Member[];
}

export interface SharingService {
  /** Adds the member, or changes their role (`created` false); owner only. */
  invite(caller: Caller, projectId: string, invite: { email: string; role: MemberRole }): Promise<{ member: Member; created: boolean }>;
  /** The owner and the members; for the owner and the members. */
  list(caller: Caller, projectId: string): Promise<MemberList>;
  /** Removes a member: the owner removes anyone, a member only themselves (leaving). */
  remove(caller: Caller, projectId: string, email: string): Promise<void>;
  /** Projects shared with the caller, each with their role and its owner. */
  sharedWith(caller: Caller): Promise<SharedProjectRow[]>;
  /** A new read-only link (replacing any earlier one): its token, shown only now. Owner only. */
  createLink(caller: Caller, projectId: string): Promise<{ token: string }>;
  /** Revokes the project's link, if it has one. Owner only. */
  revokeLink(caller: Caller, projectId: string): Promise<void>;
  /** What a link shows, without a session: the project and its canvas (JSON text, as its owner reads it); 404 for an unknown token. */
  openLink(token: string): Promise<{ project: { id: string; name: string }; canvasJson: string | null }>;
}

export interface SharingDeps {
  sharing: Pick<
    SharingRepository,
    'access' | 'lockProject' | 'listMembers' | 'upsertMember' | 'removeMember' | 'listSharedWith' | 'replaceLink' | 'deleteLink' | 'findLink'
  >;
  transactions: Transactions;
  canvas: Pick<CanvasService, 'getJson'>;
  /** PROJECT_MAX_MEMBERS. */
  maxMembers: number;
  /** Called after a member's role changed or a member left: live connections are checked again. */
  accessChanged?: (projectId: string) => Promise<void>;
}

/** What a token we made looks like: 32 bytes in base64url, no padding. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const normalEmail = (email: string) => email.trim().toLowerCase();

export function createSharingService({ sharing, transactions, canvas, maxMembers, accessChanged = async () => {} }: SharingDeps): SharingService {
  /** The caller's access to the project: 404 without a role (or for an id that cannot exist). */
  async function accessOf(caller: Caller, projectId: string, tx?: Tx): Promise<ProjectAccess> {
    if (!isUuid(projectId)) throw projectNotFound();
    const access = await sharing.access(caller.id, projectId, tx);
    if (!access) throw projectNotFound();
    return access;
  }
  async function ownerOf(caller: Caller, projectId: string, tx?: Tx): Promise<ProjectAccess> {
    const access = await accessOf(caller, projectId, tx);
    if (access.role !== 'owner') throw forbidden();
    return access;
  }

  return {
    async invite(caller, projectId, invite) {
      const email = normalEmail(invite.email);
      if (!isUuid(projectId)) throw projectNotFound();
      return transactions.transaction(async (tx) => {
        // Changes of one project's members are serialized, so the member limit holds under concurrent invites.
        if (!(await sharing.lockProject(projectId, tx))) throw projectNotFound();
        const access = await ownerOf(caller, projectId, tx);
        if (email === normalEmail(access.ownerEmail)) throw invalidRequest('The owner cannot be invited');
        const members = await sharing.listMembers(projectId, tx);
        if (!members.some((m) => m.email === email) && members.length >= maxMembers) {
          throw invalidRequest(`A project has at most ${maxMembers} members`);
        }
        return sharing.upsertMember({ projectId, email, role: invite.role, invitedBy: caller.id }, tx);
      }).then(async (result) => {
        await accessChanged(projectId);
        return result;
      });
    },

    async list(caller, projectId) {
      const access = await accessOf(caller, projectId);
      return { owner: { email: access.ownerEmail, name: access.ownerName }, members: await sharing.listMembers(projectId) };
    },

    async remove(caller, projectId, email) {
      const access = await accessOf(caller, projectId);
      const target = normalEmail(email);
      // A member may remove only themselves (leave); the owner anyone.
      if (access.role !== 'owner' && target !== normalEmail(caller.email)) throw forbidden();
      // An email PostgreSQL cannot hold (NUL) is no member of anything.
      if (target.includes('\u0000') || !(await sharing.removeMember(projectId, target))) throw memberNotFound();
      await accessChanged(projectId);
    },

    sharedWith(caller) {
      return sharing.listSharedWith(caller.id);
    },

    async createLink(caller, projectId) {
      await ownerOf(caller, projectId);
      const token = randomBytes(32).toString('base64url');
      await sharing.replaceLink(projectId, hashToken(token), caller.id);
      return { token };
    },

    async revokeLink(caller, projectId) {
      await ownerOf(caller, projectId);
      await sharing.deleteLink(projectId);
    },

    async openLink(token) {
      // Found by its hash (an index lookup): what is compared is a digest of the token, never the token itself.
      const link = TOKEN.test(token) ? await sharing.findLink(hashToken(token)) : null;
      if (!link) throw notFound();
      try {
        const canvasJson = await canvas.getJson(link.ownerId, link.projectId);
        return { project: { id: link.projectId, name: link.projectName }, canvasJson };
      } catch (err) {
        // The project was deleted between the two reads: the link went with it.
        if (isAppError(err, 'project_not_found')) throw notFound();
        throw err;
      }
    },
  };
}
