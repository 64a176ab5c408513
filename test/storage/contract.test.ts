// The same behaviour, checked against every ObjectStore driver: local folder, Azure (Azurite), S3 (s3rver).
import { BlockBlobClient } from '@azure/storage-blob';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidObjectNameError, ObjectExistsError, ObjectTooLargeError } from '../../src/storage/errors.js';
import type { ObjectStore } from '../../src/storage/object-store.js';
import { azureDriver, localDriver, s3Driver, type DriverHarness } from './drivers.js';

const MB = 1024 * 1024;

/** `bytes` as a stream of `chunk`-sized pieces, optionally failing after `failAfter` bytes. */
function streamOf(bytes: Buffer, { chunk = 64 * 1024, failAfter }: { chunk?: number; failAfter?: number } = {}) {
  async function* pieces() {
    for (let at = 0; at < bytes.length; at += chunk) {
      if (failAfter !== undefined && at >= failAfter) throw new Error('source broke');
      yield bytes.subarray(at, at + chunk);
      await new Promise((tick) => setImmediate(tick));
    }
    if (failAfter !== undefined) throw new Error('source broke');
  }
  return Readable.from(pieces(), { objectMode: false });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

let counter = 0;
const uniqueName = (ext = 'png') => `${Date.now()}-${(counter++).toString(36)}-test.${ext}`;
const baseOf = (url: string) => url.slice(0, url.lastIndexOf('/'));

describe.each([localDriver, azureDriver, s3Driver])('$kind object store', (driver) => {
  let harness: DriverHarness;
  let store: ObjectStore;

  beforeAll(async () => {
    harness = await driver.start();
    store = harness.store;
  }, 60_000);
  afterAll(async () => harness?.stop());

  /** Runs `fn`, expecting it to fail, and checks that it left nothing behind. */
  async function expectFailureLeavesNothing(name: string, fn: () => Promise<unknown>): Promise<unknown> {
    const before = await harness.inventory();
    const error = await fn().then(
      () => {
        throw new Error('expected a failure');
      },
      (err: unknown) => err,
    );
    expect(await store.head(name)).toBeNull();
    expect(await store.get(name)).toBeNull();
    expect(await harness.inventory()).toEqual(before);
    expect((await harness.inventory()).filter((entry) => entry.includes('.tmp-'))).toEqual([]);
    return error;
  }

  it('reports its kind and is ready', async () => {
    expect(store.kind).toBe(driver.kind);
    await expect(store.check()).resolves.toBeUndefined();
    await expect(store.init()).resolves.toBeUndefined(); // idempotent
  });

  it('round-trips exact bytes and the content type, from a stream or a buffer', async () => {
    const bytes = randomBytes(300 * 1024 + 17);
    const name = uniqueName();
    const stored = await store.put(name, streamOf(bytes), { contentType: 'image/png', maxBytes: MB });
    expect(stored).toMatchObject({ name, size: bytes.length });

    const got = await store.get(name);
    expect(got?.info).toMatchObject({ contentType: 'image/png', size: bytes.length });
    expect((await readAll(got!.stream)).equals(bytes)).toBe(true);

    const info = await store.head(name);
    expect(info).toMatchObject({ contentType: 'image/png', size: bytes.length });
    expect(info!.etag).toMatch(/^".+"$/);
    expect(got!.info.etag).toBe(info!.etag);
    expect(info!.lastModified).toBeInstanceOf(Date);
    expect(Math.abs(info!.lastModified.getTime() - Date.now())).toBeLessThan(60_000);

    const small = uniqueName('gif');
    await store.put(small, Buffer.from('GIF89a'), { contentType: 'image/gif', maxBytes: 6 });
    const gif = await store.get(small);
    expect(gif?.info.contentType).toBe('image/gif');
    expect((await readAll(gif!.stream)).toString()).toBe('GIF89a');
  });

  it('stores an empty object', async () => {
    const name = uniqueName();
    await store.put(name, Buffer.alloc(0), { contentType: 'image/png', maxBytes: 10 });
    expect(await store.head(name)).toMatchObject({ size: 0 });
    expect((await readAll((await store.get(name))!.stream)).length).toBe(0);
  });

  it('reads a byte range and still reports the whole size', async () => {
    const bytes = randomBytes(10_000);
    const name = uniqueName();
    await store.put(name, bytes, { contentType: 'image/webp', maxBytes: MB });
    const part = await store.get(name, { start: 100, end: 1099 });
    expect(part?.info.size).toBe(10_000);
    expect((await readAll(part!.stream)).equals(bytes.subarray(100, 1100))).toBe(true);
  });

  it('names the public URL of an object without writing it: the URL put answers, mapping back to the name', async () => {
    const name = uniqueName();
    const url = store.urlOf(name);
    expect(store.nameFromUrl(url)).toBe(name);
    expect(await store.head(name)).toBeNull();
    expect((await store.put(name, randomBytes(64), { contentType: 'image/png', maxBytes: MB })).url).toBe(url);
    expect(store.urlOf(name)).toBe(url);
    for (const bad of ['', '../x.png', '.meta', 'a/b.png']) expect(() => store.urlOf(bad), bad).toThrow(InvalidObjectNameError);
  });

  it('gives a public URL that maps back to the name', async () => {
    const bytes = randomBytes(2048);
    const name = uniqueName();
    const { url } = await store.put(name, bytes, { contentType: 'image/jpeg', maxBytes: MB });
    expect(url.endsWith(`/${name}`)).toBe(true);
    expect(store.nameFromUrl(url)).toBe(name);
    if (driver.kind === 'local') {
      expect(url).toBe(`http://localhost:3000/files/${name}`);
      return;
    }
    const res = await fetch(url); // anonymous, plain HTTP
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses a stream over maxBytes and leaves nothing behind', async () => {
    const name = uniqueName();
    const source = streamOf(randomBytes(200 * 1024));
    const err = await expectFailureLeavesNothing(name, () =>
      store.put(name, source, { contentType: 'image/png', maxBytes: 100 * 1024 }),
    );
    expect(err).toBeInstanceOf(ObjectTooLargeError);
    expect((err as ObjectTooLargeError).limit).toBe(100 * 1024);
    expect(source.destroyed).toBe(true);
  });

  it('refuses a buffer over maxBytes and one byte over is too many', async () => {
    const name = uniqueName();
    const err = await expectFailureLeavesNothing(name, () =>
      store.put(name, Buffer.alloc(11), { contentType: 'image/png', maxBytes: 10 }),
    );
    expect(err).toBeInstanceOf(ObjectTooLargeError);
    const exact = uniqueName();
    await expect(store.put(exact, streamOf(Buffer.alloc(10)), { contentType: 'image/png', maxBytes: 10 }))
      .resolves.toMatchObject({ size: 10 });
  });

  it('rejects when the source stream fails mid-way and leaves nothing behind', async () => {
    const name = uniqueName();
    const err = await expectFailureLeavesNothing(name, () =>
      store.put(name, streamOf(randomBytes(256 * 1024), { failAfter: 128 * 1024 }), {
        contentType: 'image/png',
        maxBytes: MB,
      }),
    );
    expect((err as Error).message).toBe('source broke');
  });

  it('rejects a source that has already failed (a multipart part cut off at its limit) and leaves nothing behind, 20 times over', async () => {
    // The failure arrives while the driver is still opening its temp file / upload: the clean-up must not
    // run before the thing it cleans up exists.
    for (let i = 0; i < 20; i++) {
      const name = uniqueName();
      const source = new Readable({ read() {} });
      source.on('error', () => undefined); // the caller's own listener, as the upload route has one
      source.destroy(new Error('already broken'));
      const err = await expectFailureLeavesNothing(name, () => store.put(name, source, { contentType: 'image/png', maxBytes: MB }));
      expect((err as Error).message).toBe('already broken');
    }
  });

  it('rejects when the source is aborted (destroyed without an error) and leaves nothing behind', async () => {
    const name = uniqueName();
    const source = new Readable({ read() {} });
    source.push(randomBytes(64 * 1024));
    setTimeout(() => source.destroy(), 50);
    await expectFailureLeavesNothing(name, () => store.put(name, source, { contentType: 'image/png', maxBytes: MB }));
  });

  it('streams large bodies in several blocks/parts, and cleans up when they go over the limit', async () => {
    const bytes = randomBytes(9 * MB);
    const name = uniqueName();
    await store.put(name, streamOf(bytes, { chunk: MB }), { contentType: 'image/tiff', maxBytes: 10 * MB });
    expect((await readAll((await store.get(name))!.stream)).equals(bytes)).toBe(true);

    // Several rounds: clean-up racing with in-flight block uploads only shows up now and then.
    const tooBig = randomBytes(14 * MB);
    for (let round = 0; round < 3; round++) {
      const big = uniqueName();
      const err = await expectFailureLeavesNothing(big, () =>
        store.put(big, streamOf(tooBig, { chunk: MB }), { contentType: 'image/tiff', maxBytes: 10 * MB }),
      );
      expect(err).toBeInstanceOf(ObjectTooLargeError);
      const broken = uniqueName();
      const failed = await expectFailureLeavesNothing(broken, () =>
        store.put(broken, streamOf(tooBig, { chunk: MB, failAfter: 9 * MB }), { contentType: 'image/tiff', maxBytes: 20 * MB }),
      );
      expect((failed as Error).message).toBe('source broke');
    }
  });

  it('hands a chunk to `written` only once it is stored: freeing each one it is handed leaves the object exact', async () => {
    const bytes = randomBytes(MB + 12_345);
    // Each piece a Buffer of its own memory, as a request's body chunks are (src/http/body-chunks.ts).
    const pieces = Array.from({ length: Math.ceil(bytes.length / (64 * 1024)) }, (_, i) => {
      const piece = bytes.subarray(i * 64 * 1024, (i + 1) * 64 * 1024);
      const own = Buffer.allocUnsafeSlow(piece.length); // never from Buffer's shared pool
      piece.copy(own);
      return own;
    });
    let handed = 0;
    const written = (chunk: Buffer) => {
      handed += chunk.length;
      (chunk.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
    };
    const name = uniqueName();
    const stored = await store.put(name, Readable.from(pieces, { objectMode: false }), { contentType: 'image/png', maxBytes: 2 * MB, written });
    expect(stored.size).toBe(bytes.length);
    expect((await readAll((await store.get(name))!.stream)).equals(bytes)).toBe(true);
    // The local folder writes the chunks as they come and hands each back; the SDK drivers gather parts of their own.
    if (driver.kind === 'local') expect(handed).toBe(bytes.length);
  });

  it('refuses to overwrite an existing object', async () => {
    const name = uniqueName();
    await store.put(name, Buffer.from('first'), { contentType: 'image/png', maxBytes: 100 });
    const second = streamOf(Buffer.from('second'));
    await expect(store.put(name, second, { contentType: 'image/gif', maxBytes: 100 })).rejects.toBeInstanceOf(ObjectExistsError);
    const got = await store.get(name);
    expect(got?.info.contentType).toBe('image/png');
    expect((await readAll(got!.stream)).toString()).toBe('first');
  });

  // s3rver ignores If-None-Match, so only the look-before-write guards it (real S3 honours the condition).
  if (driver.kind !== 's3') it('lets exactly one of several racing puts of one name win', async () => {
    const name = uniqueName();
    const bodies = Array.from({ length: 5 }, (_, i) => Buffer.from(`body ${i}`));
    const results = await Promise.allSettled(
      bodies.map((body) => store.put(name, streamOf(body), { contentType: 'image/png', maxBytes: 100 })),
    );
    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(String(result.reason)).toMatch(/exists/);
    }
    expect((await readAll((await store.get(name))!.stream)).equals(bodies[winners[0]])).toBe(true);
  });

  it('deletes, and deleting a missing object is not an error', async () => {
    const name = uniqueName();
    await store.put(name, Buffer.from('bye'), { contentType: 'image/png', maxBytes: 100 });
    await store.delete(name);
    expect(await store.head(name)).toBeNull();
    expect(await store.get(name)).toBeNull();
    await expect(store.delete(name)).resolves.toBeUndefined();
    await expect(store.delete(uniqueName())).resolves.toBeUndefined();
    // The name is free again.
    await store.put(name, Buffer.from('again'), { contentType: 'image/png', maxBytes: 100 });
    expect(await store.head(name)).toMatchObject({ size: 5 });
  });

  it('lists every stored object once, and no deleted one', async () => {
    const names = [uniqueName(), uniqueName(), uniqueName()];
    for (const name of names) await store.put(name, Buffer.from(name), { contentType: 'image/png', maxBytes: 1000 });
    await store.delete(names[2]);
    const listed: string[] = [];
    for await (const name of store.list()) listed.push(name);
    expect(listed.filter((n) => names.includes(n)).sort()).toEqual(names.slice(0, 2).sort());
    expect(new Set(listed).size).toBe(listed.length);
    // Only object names: never the local driver's own files (.meta/, .tmp-*).
    expect(listed.filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('answers null for missing objects', async () => {
    expect(await store.head('missing.png')).toBeNull();
    expect(await store.get('missing.png')).toBeNull();
  });

  it('maps only its own URLs back to names', async () => {
    const name = uniqueName();
    const { url } = await store.put(name, Buffer.from('x'), { contentType: 'image/png', maxBytes: 10 });
    const base = baseOf(url);
    const origin = new URL(url).origin;
    expect(store.nameFromUrl(`${base}/other-name.png`)).toBe('other-name.png');
    for (const foreign of [
      `https://evil.example/${name}`,
      url.replace(new URL(url).hostname, 'example.com'),
      url.replace(origin, origin.replace(/:\d+$/, ':1')),
      url.replace('http:', 'https:'),
      `${baseOf(base)}/elsewhere/${name}`,
      `${base}/../${name}`,
      `${base}/..%2F..%2Fetc%2Fpasswd`,
      `${base}/%2e%2e/${name}`,
      `${base}/a%2Fb.png`,
      `${base}/sub/${name}`,
      `${base}/..`,
      `${base}/.hidden`,
      `${base}/`,
      `${base}`,
      `${url}?x=1`,
      `${url}#frag`,
      url.replace('://', '://user:pw@'),
      `${base}\\${name}`,
      ` ${url}`,
      'not a url',
      `javascript:alert(1)//${name}`,
      `data:image/png;base64,AAAA`,
      '',
    ]) {
      expect(store.nameFromUrl(foreign), foreign).toBeNull();
    }
  });

  it('rejects invalid names in every method', async () => {
    for (const bad of ['', '../etc/passwd', 'a/b.png', '..', '.', '.hidden', 'a b.png', 'ü.png', 'a\0b', 'x'.repeat(201)]) {
      const body = streamOf(Buffer.from('data'));
      await expect(store.put(bad, body, { contentType: 'image/png', maxBytes: 100 }), bad).rejects.toBeInstanceOf(InvalidObjectNameError);
      expect(body.destroyed).toBe(true);
      await expect(store.get(bad), bad).rejects.toBeInstanceOf(InvalidObjectNameError);
      await expect(store.head(bad), bad).rejects.toBeInstanceOf(InvalidObjectNameError);
      await expect(store.delete(bad), bad).rejects.toBeInstanceOf(InvalidObjectNameError);
    }
    const longest = 'x'.repeat(200);
    await expect(store.put(longest, Buffer.from('ok'), { contentType: 'image/png', maxBytes: 10 })).resolves.toMatchObject({ name: longest });
  });

  it('accepts 20 concurrent puts of distinct names', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ name: uniqueName(), bytes: randomBytes(10_000 + i) }));
    const results = await Promise.all(
      items.map(({ name, bytes }) => store.put(name, streamOf(bytes, { chunk: 4096 }), { contentType: 'image/png', maxBytes: MB })),
    );
    expect(new Set(results.map((r) => r.url)).size).toBe(20);
    for (const { name, bytes } of items) {
      expect((await readAll((await store.get(name))!.stream)).equals(bytes)).toBe(true);
    }
  });

  // s3rver has no access control at all, and the local folder is written by the service only.
  if (driver.kind === 'azure') it('refuses writes without credentials, and anonymous listing', async () => {
    const { url } = await store.put(uniqueName(), Buffer.from('x'), { contentType: 'image/png', maxBytes: 10 });
    const target = `${baseOf(url)}/${uniqueName()}`;
    await expect(new BlockBlobClient(target).upload('sneaky', 6)).rejects.toMatchObject({ statusCode: 403 });
    const put = await fetch(target, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'sneaky' });
    expect(put.status).toBeGreaterThanOrEqual(400);
    expect(store.nameFromUrl(target)).not.toBeNull();
    expect(await store.head(store.nameFromUrl(target)!)).toBeNull();
    const list = await fetch(`${baseOf(url)}?restype=container&comp=list`);
    expect(list.status).toBeGreaterThanOrEqual(400);
  });
});
