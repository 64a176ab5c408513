// Spend (docs/api.md "Spend"): GET /api/user/spend says what your generations cost today, this month and per project,
// with your daily budget for runs (USER_DAILY_BUDGET_USD); GET /api/projects/{id}/spend what a project's cost per
// person, for its owner and members (viewers too), 404 for anyone else. Costs are the generations' recorded ones:
// priced generations through fal's SDK against its local fake (list price $0.039), the offline engine free.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let fal: FakeFal;
let image: string;

beforeAll(async () => {
  fal = await startFakeFal({ key: 'fal-key' });
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', FAL_KEY: 'fal-key', FAL_BASE_URL: fal.baseUrl, USER_DAILY_BUDGET_USD: '5' });
  image = `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer()).toString('base64')}`;
});
afterAll(async () => {
  await t?.close();
  await fal?.close();
});

const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });

async function project(client: HttpClient, userId: string, name: string): Promise<string> {
  const id = (await client.post('/api/user/project', { userId, name })).json.id as string;
  expect((await client.post('/api/user/project/canvas', { projectId: id, nodes: [node('g')], edges: [], version: 0 })).status).toBe(200);
  return id;
}

async function generate(client: HttpClient, projectId: string, model?: string): Promise<void> {
  const made = await client.post('/api/generations', { images: [image], prompt: 'grayscale', projectId, nodeId: 'g', ...(model ? { model } : {}) });
  expect(made.status, made.text).toBe(202);
  expect(await untilJob(client, made.json.id)).toMatchObject({ status: 'succeeded' });
}

describe('spend', () => {
  it("sums your generations' costs today, this month and per project, with your daily budget; a project's per person for its members", async () => {
    const ada = await t.user('ada@example.com', 'Ada');
    const bob = await t.user('bob@example.com', 'Bob');
    const cy = await t.user('cy@example.com', 'Cy');
    const dee = await t.user('dee@example.com', 'Dee');
    expect((await ada.client.get('/api/user/spend')).json).toMatchObject({ todayUsd: 0, monthUsd: 0, budgetUsd: 5, projects: [] });

    const studio = await project(ada.client, ada.id, 'Studio');
    const sketches = await project(ada.client, ada.id, 'Sketches');
    expect((await ada.client.post(`/api/user/project/${studio}/members`, { email: bob.email, role: 'editor' })).status).toBe(201);
    expect((await ada.client.post(`/api/user/project/${studio}/members`, { email: cy.email, role: 'viewer' })).status).toBe(201);
    await generate(ada.client, studio, 'fal-ai/nano-banana/edit'); // $0.039
    await generate(ada.client, studio, 'fal-ai/flux-pro/kontext'); // $0.04
    await generate(ada.client, sketches); // the offline engine: free
    await generate(bob.client, studio, 'fal-ai/nano-banana/edit'); // $0.039, Bob's

    const mine = await ada.client.get('/api/user/spend');
    expect(mine.status).toBe(200);
    expect(mine.json).toEqual({
      month: new Date().toISOString().slice(0, 7),
      usd: 0.079,
      generations: 3,
      priced: 2,
      todayUsd: 0.079,
      monthUsd: 0.079,
      budgetUsd: 5,
      projects: [
        { projectId: studio, name: 'Studio', usd: 0.079, generations: 2 },
        { projectId: sketches, name: 'Sketches', usd: 0, generations: 1 },
      ],
    });
    expect((await bob.client.get('/api/user/spend')).json).toMatchObject({ todayUsd: 0.039, projects: [{ projectId: studio, name: 'Studio', usd: 0.039, generations: 1 }] });

    const perPerson = {
      totalUsd: 0.118,
      people: [
        { userId: ada.id, name: 'Ada', email: ada.email, usd: 0.079, generations: 2 },
        { userId: bob.id, name: 'Bob', email: bob.email, usd: 0.039, generations: 1 },
      ],
    };
    for (const who of [ada, bob, cy]) expect(await who.client.get(`/api/projects/${studio}/spend`), who.email).toMatchObject({ status: 200, json: perPerson });
    expect(await dee.client.get(`/api/projects/${studio}/spend`)).toMatchObject({ status: 404, json: { error: 'Project not found' } }); // no member
    expect((await dee.client.get('/api/user/spend')).json).toMatchObject({ todayUsd: 0, projects: [] });
    expect((await ada.client.get(`/api/projects/${sketches}/spend`)).json).toEqual({ totalUsd: 0, people: [{ userId: ada.id, name: 'Ada', email: ada.email, usd: 0, generations: 1 }] });
  });

  it('answers 404 Project not found to a stranger, for a project that does not exist and for an id that is none; 401 signed out', async () => {
    const eve = await t.user('eve@example.com');
    const owner = await t.user('owner@example.com');
    const theirs = await project(owner.client, owner.id, 'Private');
    for (const id of [theirs, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect(await eve.client.get(`/api/projects/${id}/spend`), id).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    }
    expect((await t.client().get(`/api/projects/${theirs}/spend`)).status).toBe(401);
    expect((await t.client().get('/api/user/spend')).status).toBe(401);
  });
});
