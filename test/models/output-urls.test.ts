// Output images a hosted provider names by URL (fal, Replicate), fetched through the service's SSRF guard with the
// size limit enforced while reading (issue 31). The fakes stand on 127.0.0.2, the one address the guard's network
// allows here (as the public internet would be); 127.0.0.1 is the "internal" victim, which must never be reached.
// Names resolve from a table (the guard's injected lookup), as in test/net/safe-fetch.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImageModel } from '../../src/models/index.js';
import { type ImageModel, ModelFailedError } from '../../src/models/image-model.js';
import { createSafeFetcher, type Network } from '../../src/net/safe-fetch.js';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { createOutputFiles, ENDLESS_BYTES, type OutputFiles } from '../fakes/output-files.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';
import { startServer, type TestServer } from '../net/test-server.js';
import { gradient, png, request } from './images.js';

const KEY = 'provider-test-key-0123456789';
const PROVIDER_HOST = '127.0.0.2';
const LIMIT = 1024 * 1024;
/** What may pass the limit before the read stops: the socket buffers of both ends on loopback, and undici's own. */
const SLACK = 16 * 1024 * 1024;

const NAMES: Record<string, string> = { 'cdn.example.test': PROVIDER_HOST, 'metadata.example.test': '169.254.169.254', 'internal.example.test': '127.0.0.1' };
const network: Network = {
  lookup: async (hostname) => (NAMES[hostname] ? [{ address: NAMES[hostname], family: 4 }] : []),
  isAllowed: (ip) => ip === PROVIDER_HOST,
};

let victim: TestServer;
let files: OutputFiles;
let fal: FakeFal;
let replicate: FakeReplicate;
let falModel: ImageModel;
let replicateModel: ImageModel;
const fetcher = createSafeFetcher({ maxBytes: LIMIT, timeoutMs: 20_000, maxRedirects: 3, network });
let answer: Buffer;
let input: Buffer;

beforeAll(async () => {
  victim = await startServer('127.0.0.1');
  files = createOutputFiles();
  [fal, replicate] = await Promise.all([startFakeFal({ key: KEY, files, host: PROVIDER_HOST }), startFakeReplicate({ token: KEY, files, host: PROVIDER_HOST })]);
  falModel = await createImageModel({ model: 'fal-ai/nano-banana/edit', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 20_000, maxOutputBytes: LIMIT, outputFetcher: fetcher });
  replicateModel = await createImageModel({ model: 'google/nano-banana', apiKey: KEY, baseUrl: replicate.baseUrl, timeoutMs: 20_000, maxOutputBytes: LIMIT, outputFetcher: fetcher });
  [answer, input] = await Promise.all([gradient(16, 16, 40), gradient(8, 8)]);
});
afterAll(async () => {
  await fetcher.close();
  await Promise.all([victim?.close(), fal?.close(), replicate?.close()]);
});

/** The call's error: a ModelFailedError whose message says why. */
async function failure(promise: Promise<unknown>): Promise<ModelFailedError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelFailedError);
  return err as ModelFailedError;
}

const viaFal = (url: string) => {
  fal.script({ result: { kind: 'image', asUrl: url } });
  return falModel.generate(request([png(input)], 'x'));
};
const viaReplicate = (url: string) => {
  replicate.script({ end: { kind: 'succeeded', url } });
  return replicateModel.generate(request([png(input)], 'x'));
};

describe('provider output URLs', () => {
  it('a normal output named by URL is fetched (fal and Replicate), through the guard', async () => {
    const path = files.put('answer.png', answer);
    expect((await viaFal(path)).image?.data.equals(answer)).toBe(true);
    expect((await viaReplicate(path)).image?.data.equals(answer)).toBe(true);
    // http on another origin than the API's (the same server under another name): not https, refused.
    const elsewhere = `http://cdn.example.test:${new URL(replicate.baseUrl).port}${path}`;
    expect((await failure(viaReplicate(elsewhere))).message).toBe('the model answered with an image URL that is not https');
  });

  it('refuses an output on an address the guard refuses, before any connection', async () => {
    const refused = [
      `https://127.0.0.1:${victim.port}/out.png`,
      `https://internal.example.test:${victim.port}/out.png`,
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.example.test/latest/meta-data/',
      'https://[::1]/out.png',
      'https://10.0.0.1/out.png',
      'https://nowhere.example.test/out.png',
    ];
    for (const url of refused) {
      for (const via of [viaFal, viaReplicate]) {
        const err = await failure(via(url));
        expect(err.message, url).toBe("the model's image could not be fetched (host not found or not allowed)");
      }
    }
    expect(victim.connections).toBe(0);
  });

  it('refuses schemes other than https (and http on the API host) without fetching', async () => {
    const before = files.requested.length;
    for (const url of ['file:///etc/passwd', 'ftp://cdn.example.test/out.png', 'gopher://127.0.0.1:70/_x', `http://127.0.0.1:${victim.port}/out.png`, 'data:image/png,notbase64', 'javascript:alert(1)', 'not a url']) {
      for (const via of [viaFal, viaReplicate]) {
        expect((await failure(via(url))).message, url).toBe('the model answered with an image URL that is not https');
      }
    }
    expect(victim.connections).toBe(0);
    expect(files.requested.length).toBe(before);
  });

  it('a redirect to a refused address is refused at that hop', async () => {
    for (const to of [`http://127.0.0.1:${victim.port}/`, `http://internal.example.test:${victim.port}/`, 'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd']) {
      const path = `/files/redirect?to=${encodeURIComponent(to)}`;
      const err = await failure(viaReplicate(path));
      expect(err.message, to).toMatch(/^the model's image could not be fetched \((host not found or not allowed|unsupported URL scheme)\)$/);
    }
    expect(victim.connections).toBe(0);
  });

  it('an output larger than the limit is refused while it streams: reading stops soon after the limit', async () => {
    for (const via of [viaFal, viaReplicate]) {
      const err = await failure(via('/files/endless.png'));
      expect(err.message).toBe('the model returned an image larger than allowed');
      const sent = await files.endlessClosed();
      // The whole answer would be ENDLESS_BYTES; what the socket took before the client closed it stays near the limit.
      expect(sent).toBeGreaterThan(LIMIT);
      expect(sent).toBeLessThan(LIMIT + SLACK);
      expect(sent).toBeLessThan(ENDLESS_BYTES / 8);
    }
    // A Content-Length over the limit is refused before the body is read.
    expect((await failure(viaReplicate('/files/declared-huge.png'))).message).toBe('the model returned an image larger than allowed');
    // A data URI over the limit too.
    const big = `data:image/png;base64,${Buffer.alloc(LIMIT + 10).toString('base64')}`;
    expect((await failure(viaFal(big))).message).toBe('the model returned an image larger than allowed');
  });
});
