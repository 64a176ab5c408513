// Sharing (docs/api.md "Sharing"): the owner invites people by email as `editor` (reads and writes the canvas)
// or `viewer` (reads it), and may make one read-only link. Only the owner changes members and the link (`share`); a
// member may read the member list (`read`) and leave (`leave`). Anyone without a role gets `404 Project not found`,
// whether or not the project exists; a member asking for an owner-only change gets `403 Forbidden` (they know the
// project exists): src/auth/project-access.ts.
// A link's token is 256 random bits; only its SHA-256 is stored, so it is shown once, when it is made.
import { randomBytes } from 'node:crypto';
import type { ProjectAccess } from '../auth/project-access.js';
import { linkHashOf } from '../auth/share-links.js';
import type { Transactions } from '../db/index.js';
import type { Member, MemberRole, SharedProjectRow, SharingRepository } from '../db/repositories/index.js';
import { invalidRequest, isAppError, memberNotFound, notFound, projectNotFound } from '../errors.js';
import type { CanvasService } from './canvas.js';
import { isUuid } from '../ids.js';

/** The signed-in user: roles are matched by their email. */
export interface Caller {
  id: string;
  email: string;
  /** Their name, when known: who changed a member is told to that member by it (else by the email). */
  name?: string;
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
    'lockProject' | 'listMembers' | 'upsertMember' | 'removeMember' | 'listSharedWith' | 'replaceLink' | 'deleteLink' | 'findLink'
  >;
  access: Pick<ProjectAccess, 'require'>;
  transactions: Transactions;
  canvas: Pick<CanvasService, 'getJson'>;
  /** PROJECT_MAX_MEMBERS. */
  maxMembers: number;
  /** Called after a member's role changed or a member left: live connections are checked again (and told by whom). */
  accessChanged?: (projectId: string, change?: { by: string }) => Promise<void>;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

export function createSharingService({ sharing, access, transactions, canvas, maxMembers, accessChanged = async () => {} }: SharingDeps): SharingService {
  return {
    async invite(caller, projectId, invite) {
      const email = normalEmail(invite.email);
      if (!isUuid(projectId)) throw projectNotFound();
      return transactions.transaction(async (tx) => {
        // Changes of one project's members are serialized, so the member limit holds under concurrent invites.
        if (!(await sharing.lockProject(projectId, tx))) throw projectNotFound();
        const { owner } = await access.require({ userId: caller.id }, projectId, 'share', tx);
        if (email === normalEmail(owner.email)) throw invalidRequest('The owner cannot be invited');
        const members = await sharing.listMembers(projectId, tx);
        if (!members.some((m) => m.email === email) && members.length >= maxMembers) {
          throw invalidRequest(`A project has at most ${maxMembers} members`);
        }
        return sharing.upsertMember({ projectId, email, role: invite.role, invitedBy: caller.id }, tx);
      }).then(async (result) => {
        await accessChanged(projectId, { by: caller.name || caller.email });
        return result;
      });
    },

    async list(caller, projectId) {
      const { owner } = await access.require({ userId: caller.id }, projectId, 'read');
      return { owner: { email: owner.email, name: owner.name }, members: await sharing.listMembers(projectId) };
    },

    async remove(caller, projectId, email) {
      const target = normalEmail(email);
      // Removing oneself is leaving; removing anyone else is the owner's (sharing).
      await access.require({ userId: caller.id }, projectId, target === normalEmail(caller.email) ? 'leave' : 'share');
      // An email PostgreSQL cannot hold (NUL) is no member of anything.
      if (target.includes('\u0000') || !(await sharing.removeMember(projectId, target))) throw memberNotFound();
      await accessChanged(projectId, { by: caller.name || caller.email });
    },

    sharedWith(caller) {
      return sharing.listSharedWith(caller.id);
    },

    async createLink(caller, projectId) {
      await access.require({ userId: caller.id }, projectId, 'share');
      const token = randomBytes(32).toString('base64url');
      await sharing.replaceLink(projectId, linkHashOf(token)!, caller.id);
      await accessChanged(projectId); // the link it replaces ends for whoever follows the canvas by it
      return { token };
    },

    async revokeLink(caller, projectId) {
      await access.require({ userId: caller.id }, projectId, 'share');
      await sharing.deleteLink(projectId);
      await accessChanged(projectId);
    },

    async openLink(token) {
      // Found by its hash (an index lookup): what is compared is a digest of the token, never the token itself.
      const linkHash = linkHashOf(token);
      const link = linkHash ? await sharing.findLink(linkHash) : null;
      if (!link) throw notFound();
      try {
        // Read as the link's holder (`view`): revoked meanwhile, it shows nothing.
        const canvasJson = await canvas.getJson({ linkHash: linkHash! }, link.projectId);
        return { project: { id: link.projectId, name: link.projectName }, canvasJson };
      } catch (err) {
        // The project was deleted (or the link revoked) between the two reads.
        if (isAppError(err, 'project_not_found')) throw notFound();
        throw err;
      }
    },
  };
}
