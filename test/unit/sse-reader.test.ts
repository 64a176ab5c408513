// The typed client's Server-Sent Events reader (client/sse.ts) and the helpers built on it (client/index.ts):
// the parser against the WHATWG rules with the stream cut at every byte, and followJobEvents / waitForJob /
// download against real HTTP servers on loopback that speak the event stream of GET /api/generations/events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createImageCanvasClient, createSseParser, EventStreamClosed, ImageCanvasError, type GenerationJob, type SseEvent } from '../../client/index.js';

function parseAll(chunks: (Uint8Array | string)[], lastEventId?: string) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const comments: string[] = [];
  const parser = createSseParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms), onComment: (c) => comments.push(c) }, lastEventId);
  for (const chunk of chunks) parser.feed(chunk);
  return { events, retries, comments, lastEventId: parser.lastEventId };
}

// One stream with every rule in it; mixed line ends on purpose (CRLF, LF and CR alone).
const STREAM =
  '\uFEFF: ping\r\n' + // a byte order mark at the start is dropped; a comment
  'retry: 2500\n' +
  'retry: 12x\n' + // not all digits: ignored
  'id: 1\r\nevent: job\r\ndata: {"a":1}\r\n\r\n' +
  'id:2\rdata:first\rdata:  second (one space dropped)\rdata\r\r' + // `data` alone is an empty line of data
  'event: nothing\n\n' + // no data: not dispatched, and the event type does not leak into the next one
  'data: café ✓ 🎨\nunknown: field\nid: 3\0x\n\n' + // multi-byte UTF-8; an id holding NUL is ignored
  ': keep-alive\n' +
  'id: 4\n\n' + // an id alone moves the last event id without an event
  'data: x:y: z\nid\n\n' + // only the first colon splits; `id` alone resets the id to empty
  'id: 5\ndata: unterminated'; // the stream ends inside an event: dropped

const EXPECTED: SseEvent[] = [
  { id: '1', event: 'job', data: '{"a":1}' },
  { id: '2', event: 'message', data: 'first\n second (one space dropped)\n' },
  { id: '2', event: 'message', data: 'café ✓ 🎨' },
  { id: '', event: 'message', data: 'x:y: z' },
];

describe('the SSE parser', () => {
  const bytes = new TextEncoder().encode(STREAM);

  it('reads every field, comment, line ending and multi-line data as the standard says', () => {
    const all = parseAll([bytes]);
    expect(all.events).toEqual(EXPECTED);
    expect(all.retries).toEqual([2500]);
    expect(all.comments).toEqual([' ping', ' keep-alive']);
    expect(all.lastEventId).toBe('');
  });

  it('gives the same events whichever byte the stream is cut at (inside a character, between CR and LF)', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)]).events, `cut at byte ${cut}`).toEqual(EXPECTED);
    }
    const oneByOne = [...bytes].map((b) => Uint8Array.of(b));
    expect(parseAll(oneByOne).events).toEqual(EXPECTED);
    // CRLF split across chunks is one line end, not a line end and an empty line (which would dispatch).
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n']).events).toEqual([{ id: '', event: 'message', data: 'a\nb' }]);
  });

  it('drops one byte order mark only, and keeps the id it started from until the stream sets one', () => {
    expect(parseAll(['\uFEFF\uFEFFdata: x\n\n']).events).toEqual([]); // the second BOM is part of a field name
    expect(parseAll(['data: x\n\n'], '41').events).toEqual([{ id: '41', event: 'message', data: 'x' }]);
    expect(parseAll(['id: 42\n\n'], '41').lastEventId).toBe('42');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The helpers against loopback servers.

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const job = (id: string, status: GenerationJob['status'], extra: Partial<GenerationJob> = {}): GenerationJob => ({
  id,
  status,
  queuePosition: status === 'queued' ? 1 : null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  error: null,
  output: status === 'succeeded' ? { imageUrl: 'http://127.0.0.1/files/out.png' } : null,
  projectId: null,
  nodeId: null,
  model: 'local',
  attempts: 1,
  progress: null,
  ...extra,
});
const frame = (id: number, j: GenerationJob) => `id: ${id}\nevent: job\ndata: ${JSON.stringify(j)}\n\n`;
const openStream = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });

describe('followJobEvents', () => {
  // First of the file's requests: on Node 22 the first fetch of a process did not pass an abort on to a pending read
  // of its body (the connection stayed open and the follower hung) until the follower canceled the read itself.
  it('stops at once when its signal aborts while it waits for the next event, closing the connection', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const baseUrl = await serve((req, res) => {
      openStream(res);
      res.write(': connected\n\n');
      req.socket.on('close', closed);
    });
    const stop = new AbortController();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    // A long retry: were the abort to end the stream like a drop, the follower would wait it out before stopping.
    const followed = createImageCanvasClient({ baseUrl }).followJobEvents({ signal: stop.signal, retryMs: 600_000, onOpen: () => opened(), onEvent: () => {} });
    await open;
    await new Promise((resolve) => setTimeout(resolve, 20)); // not a wait for an event: the abort comes while it reads
    stop.abort();
    await expect(followed).resolves.toBeUndefined();
    await connectionClosed;
  });

  it('reconnects after the stream ends or drops, sending Last-Event-ID, so every event arrives once', async () => {
    // The server replays what follows Last-Event-ID, as the service does. The first connection ends cleanly after
    // event 2; the second is cut (inside event 4) once the client has handled event 3; the third gives the rest.
    const log = [job('job_a', 'queued'), job('job_a', 'running'), job('job_b', 'queued'), job('job_a', 'succeeded')];
    const after = (id: string | undefined, upTo: number) => log.slice(Number(id ?? 0), upTo).map((j, i) => frame(Number(id ?? 0) + i + 1, j)).join('');
    let handledThree!: () => void;
    const three = new Promise<void>((resolve) => (handledThree = resolve));
    const seen: { lastEventId?: string; authorization?: string; accept?: string }[] = [];
    const baseUrl = await serve((req, res) => {
      const lastEventId = req.headers['last-event-id'] as string | undefined;
      seen.push({ lastEventId, authorization: req.headers.authorization, accept: req.headers.accept });
      openStream(res);
      if (seen.length === 1) return res.end(`${after(lastEventId, 1)}: ping\n\n${after('1', 2)}`);
      if (seen.length === 2) {
        res.write(`${after(lastEventId, 3)}id: 4\nevent: job\ndata: {"id":`);
        return void three.then(() => res.socket?.destroy());
      }
      res.write(after(lastEventId, 4));
    });
    const client = createImageCanvasClient({ baseUrl, token: 'ic_test' });
    const stop = new AbortController();
    const got: [string, string, string][] = [];
    await client.followJobEvents({
      signal: stop.signal,
      retryMs: 0,
      onEvent(j, id) {
        got.push([id, j.id, j.status]);
        if (id === '3') handledThree();
        if (j.status === 'succeeded') stop.abort();
      },
    });
    expect(got).toEqual([
      ['1', 'job_a', 'queued'],
      ['2', 'job_a', 'running'],
      ['3', 'job_b', 'queued'],
      ['4', 'job_a', 'succeeded'],
    ]);
    expect(seen).toEqual([
      { lastEventId: undefined, authorization: 'Bearer ic_test', accept: 'text/event-stream' },
      { lastEventId: '2', authorization: 'Bearer ic_test', accept: 'text/event-stream' },
      { lastEventId: '3', authorization: 'Bearer ic_test', accept: 'text/event-stream' },
    ]);
  });

  it('starts after the lastEventId it is given, and retries a 503 but not a refusal', async () => {
    const asked: (string | undefined)[] = [];
    const baseUrl = await serve((req, res) => {
      asked.push(req.headers['last-event-id'] as string | undefined);
      if (asked.length === 1) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Service unavailable"}');
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
    });
    const client = createImageCanvasClient({ baseUrl, token: 'ic_revoked' });
    const followed = client.followJobEvents({ lastEventId: '17', signal: new AbortController().signal, retryMs: 0, onEvent: () => {} });
    await expect(followed).rejects.toBeInstanceOf(ImageCanvasError);
    await expect(followed).rejects.toMatchObject({ status: 401, body: { error: 'Unauthorized' }, message: '401 Unauthorized' });
    expect(asked).toEqual(['17', '17']);
  });

  it('stops when its signal aborts, closing the connection', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const baseUrl = await serve((req, res) => {
      openStream(res);
      res.write(frame(1, job('job_a', 'running')));
      req.socket.on('close', closed);
    });
    const stop = new AbortController();
    const followed = createImageCanvasClient({ baseUrl }).followJobEvents({ signal: stop.signal, onEvent: () => stop.abort() });
    await expect(followed).resolves.toBeUndefined();
    await connectionClosed;
  });

  it('hands back what onEvent throws, without reconnecting', async () => {
    let connections = 0;
    const baseUrl = await serve((_req, res) => {
      connections++;
      openStream(res);
      res.write(frame(1, job('job_a', 'running')));
    });
    const boom = new TypeError('a bug in the caller');
    const followed = createImageCanvasClient({ baseUrl }).followJobEvents({ signal: new AbortController().signal, retryMs: 0, onEvent: () => { throw boom; } });
    await expect(followed).rejects.toBe(boom);
    expect(connections).toBe(1);
  });

  it("stops with EventStreamClosed when the service ends the stream saying why, without reconnecting (another would end the user's next stream)", async () => {
    let connections = 0;
    const baseUrl = await serve((_req, res) => {
      connections++;
      openStream(res);
      res.end(`${frame(1, job('job_a', 'running'))}event: closed\ndata: {"reason":"too-many-streams"}\n\n`);
    });
    const got: string[] = [];
    const followed = createImageCanvasClient({ baseUrl }).followJobEvents({ signal: new AbortController().signal, retryMs: 0, onEvent: (_j, id) => void got.push(id) });
    await expect(followed).rejects.toBeInstanceOf(EventStreamClosed);
    await expect(followed).rejects.toMatchObject({ reason: 'too-many-streams' });
    expect(got).toEqual(['1']);
    expect(connections).toBe(1);
  });
});

describe('waitForJob and download', () => {
  it('answers the job once an event shows it finished, ignoring other jobs', async () => {
    const baseUrl = await serve((req, res) => {
      if (req.url === '/api/generations/job_a') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(job('job_a', 'queued')));
      openStream(res);
      res.write(frame(7, job('job_b', 'succeeded')) + frame(8, job('job_a', 'running')) + frame(9, job('job_a', 'succeeded')));
    });
    const updates: string[] = [];
    const done = await createImageCanvasClient({ baseUrl }).waitForJob('job_a', { onUpdate: (j) => updates.push(j.status) });
    expect(done).toMatchObject({ id: 'job_a', status: 'succeeded', output: { imageUrl: expect.any(String) } });
    expect(updates).toEqual(['queued', 'running', 'succeeded']);
  });

  it('answers a job that finished before the stream opened, from reading it', async () => {
    const baseUrl = await serve((req, res) => {
      if (req.url === '/api/generations/job_a') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(job('job_a', 'failed', { error: { status: 400, error: 'Invalid image' } })));
      openStream(res);
      res.write(': ping\n\n');
    });
    await expect(createImageCanvasClient({ baseUrl }).waitForJob('job_a')).resolves.toMatchObject({ status: 'failed', error: { error: 'Invalid image' } });
  });

  it('sends the token with a download from the service, never to another origin', async () => {
    const auth: Record<string, string | undefined> = {};
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const handler = (name: string): http.RequestListener => (req, res) => {
      auth[name] = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    };
    const [service, storage] = await Promise.all([serve(handler('service')), serve(handler('storage'))]);
    const client = createImageCanvasClient({ baseUrl: service, token: 'ic_secret' });
    const own = await client.download('/files/out.png');
    expect(own).toMatchObject({ contentType: 'image/png', size: 8 });
    expect(Buffer.from(await new Response(own.body).arrayBuffer())).toEqual(png);
    await new Response((await client.download(`${storage}/bucket/out.png`)).body).arrayBuffer(); // another port: another origin
    expect(auth).toEqual({ service: 'Bearer ic_secret', storage: undefined });
  });
});
