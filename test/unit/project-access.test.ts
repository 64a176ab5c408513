// The one project-access rule (src/auth/project-access.ts): its table is the one docs/api.md "Who may do what"
// shows; its refusals (404 to anyone who holds nothing, 403 to a role without the action); what each actor holds,
// read in one query (none, without a query, for an id that cannot be a project); and that no other module of src/
// decides by a role name or derives a role from project_members (test/api/project-access.test.ts checks the routes).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { check, createProjectAccess, permits, PERMISSIONS, refusal, type Access, type ProjectAction } from '../../src/auth/project-access.js';
import type { SharingRepository } from '../../src/db/repositories/index.js';
import { AppError } from '../../src/errors.js';
import { createFakeRepositories, type FakeRepositories } from '../fakes/repositories.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ACCESS: Access[] = ['owner', 'editor', 'viewer', 'link', 'none'];
const ACTIONS = Object.keys(PERMISSIONS) as ProjectAction[];
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'allowed';
  } catch (err) {
    return err instanceof AppError ? err.code : err;
  }
};

describe('the rule', () => {
  it('is the table docs/api.md "Who may do what" shows, row by row', () => {
    const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const start = doc.indexOf('### Who may do what');
    const section = doc.slice(start, doc.indexOf('\n#', start + 1));
    const header = section.split('\n').find((l) => l.startsWith('| Action'))!;
    const columns = header.split('|').map((c) => c.trim()).slice(3, -1);
    expect(columns).toEqual(['owner', 'editor', 'viewer', 'link']);
    const documented = Object.fromEntries(
      section
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => {
          const cells = l.split('|').map((c) => c.trim());
          return [cells[1].replaceAll('`', ''), columns.filter((_, i) => cells[3 + i] === '✓')];
        }),
    );
    expect(documented).toEqual(PERMISSIONS);
  });

  it('refuses with 404 Project not found whoever holds nothing, and with 403 Forbidden a role without the action', () => {
    for (const action of ACTIONS) {
      for (const access of ACCESS) {
        const expected = permits(access, action) ? 'allowed' : access === 'none' ? 'project_not_found' : 'forbidden';
        expect([action, access, codeOf(() => check(access === 'none' ? null : { role: access }, action))]).toEqual([action, access, expected]);
        expect(refusal(access, action)?.code ?? 'allowed').toBe(expected);
      }
      expect(permits('none', action)).toBe(false);
    }
    expect(refusal('none', 'view')?.message).toBe('Project not found');
    expect(refusal('viewer', 'edit')?.message).toBe('Forbidden');
  });
});

describe('createProjectAccess', () => {
  let repos: FakeRepositories;
  let queries: number;
  let access: ReturnType<typeof createProjectAccess>;
  let projectId: string;
  const ids = { owner: '', editor: '', viewer: '', stranger: '' };
  const hash = (token: string) => createHash('sha256').update(token).digest('hex');

  beforeEach(async () => {
    repos = createFakeRepositories();
    queries = 0;
    const counted: Pick<SharingRepository, 'access'> = {
      access: (...args) => {
        queries++;
        return repos.sharing.access(...args);
      },
    };
    access = createProjectAccess({ sharing: counted });
    for (const name of Object.keys(ids) as Array<keyof typeof ids>) ids[name] = repos.addUser({ email: `${name}@example.com`, name }).id;
    projectId = (await repos.projects.insert({ userId: ids.owner, name: 'P' }))!.id;
    await repos.sharing.upsertMember({ projectId, email: 'editor@example.com', role: 'editor', invitedBy: ids.owner });
    await repos.sharing.upsertMember({ projectId, email: 'viewer@example.com', role: 'viewer', invitedBy: ids.owner });
    await repos.sharing.replaceLink(projectId, hash('the-token'), ids.owner);
  });

  it('tells what each actor holds, one query each; an id that cannot be a project holds nothing without a query', async () => {
    const held = {
      owner: await access.accessOf({ userId: ids.owner }, projectId),
      editor: await access.accessOf({ userId: ids.editor }, projectId),
      viewer: await access.accessOf({ userId: ids.viewer }, projectId),
      stranger: await access.accessOf({ userId: ids.stranger }, projectId),
      link: await access.accessOf({ linkHash: hash('the-token') }, projectId),
      otherLink: await access.accessOf({ linkHash: hash('another-token') }, projectId),
      missing: await access.accessOf({ userId: ids.owner }, '00000000-0000-4000-8000-000000000000'),
    };
    expect(held).toEqual({ owner: 'owner', editor: 'editor', viewer: 'viewer', stranger: 'none', link: 'link', otherLink: 'none', missing: 'none' });
    expect(queries).toBe(7);
    expect(await access.accessOf({ userId: ids.owner }, "1' OR '1'='1")).toBe('none');
    await expect(access.require({ userId: ids.owner }, 'not-a-uuid', 'view')).rejects.toMatchObject({ code: 'project_not_found' });
    expect(queries).toBe(7);
  });

  it('require answers the grant (the project name and its owner) when allowed, and the refusal otherwise', async () => {
    expect(await access.require({ userId: ids.viewer }, projectId, 'read')).toEqual({
      access: 'viewer',
      projectName: 'P',
      owner: { id: ids.owner, email: 'owner@example.com', name: 'owner' },
    });
    await expect(access.require({ userId: ids.viewer }, projectId, 'edit')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(access.require({ userId: ids.editor }, projectId, 'share')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(access.require({ userId: ids.stranger }, projectId, 'view')).rejects.toMatchObject({ code: 'project_not_found' });
    await expect(access.require({ linkHash: hash('the-token') }, projectId, 'read')).rejects.toMatchObject({ code: 'forbidden' });
    expect((await access.require({ linkHash: hash('the-token') }, projectId, 'view')).access).toBe('link');
  });
});

describe('nothing else decides access', () => {
  const SRC = join(ROOT, 'src');
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ name: relative(ROOT, join(SRC, f)), text: readFileSync(join(SRC, f), 'utf8') }));
  const matching = (pattern: RegExp, allowed: string[]) => files.filter((f) => pattern.test(f.text) && !allowed.includes(f.name)).map((f) => f.name);

  it('no module but the rule compares a role with a role name', () => {
    const comparison = /[=!]==?\s*'(owner|editor|viewer|link)'|'(owner|editor|viewer|link)'\s*[=!]==?|\.includes\('(owner|editor|viewer|link)'\)/;
    expect(matching(comparison, ['src/auth/project-access.ts'])).toEqual([]);
  });

  it('only the repositories read project_members, and only db/repositories/project-access.ts derives a role from it', () => {
    // sharing.ts manages members, projects.ts lists the projects shared with a user, canvases.ts counts editors'
    // running generations; none of them decides what someone may do.
    expect(matching(/\bproject_members\b|\bprojectMembers\./, ['src/db/schema.ts', 'src/db/repositories/project-access.ts', 'src/db/repositories/sharing.ts', 'src/db/repositories/projects.ts', 'src/db/repositories/canvases.ts'])).toEqual([]);
    expect(matching(/\b(roleOf|accessRoleOf)\b/, ['src/db/repositories/project-access.ts', 'src/db/repositories/sharing.ts', 'src/db/repositories/canvases.ts', 'src/db/repositories/access-checks.ts', 'src/db/repositories/generations-gallery.ts'])).toEqual([]);
    // What someone holds is read through the rule, never from the sharing repository directly.
    expect(matching(/\bsharing\.access\(|\.sharing\.access\b/, ['src/auth/project-access.ts'])).toEqual([]);
  });
});
