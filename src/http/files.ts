// Serves the local object store read-only at /files/<name> (embedded mode; cloud drivers serve their own URLs).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound as notFoundError } from '../errors.js';
import { isValidObjectName } from '../storage/object-name.js';
import type { ByteRange, ObjectStore } from '../storage/object-store.js';

// Stored files are user content: never let a browser run or sniff them as anything but what they claim.
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
  // Names are unique and objects never change, so a URL's bytes are fixed forever.
  'cache-control': 'public, max-age=31536000, immutable',
};

export async function localFilesPlugin(app: FastifyInstance, opts: { store: ObjectStore }): Promise<void> {
  const { store } = opts;

  // A wildcard, so that every path under /files (nested, traversal, encoded slashes) gets the same 404.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/files/*',
    handler: async (req: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
      const name = req.params['*'];
      if (!isValidObjectName(name)) return notFound(reply);
      const info = await store.head(name);
      if (!info) return notFound(reply);

      reply.headers({
        ...SECURITY_HEADERS,
        etag: info.etag,
        'last-modified': info.lastModified.toUTCString(),
        'accept-ranges': 'bytes',
      });
      if (matchesEtag(req.headers['if-none-match'], info.etag)) return reply.code(304).send();

      const ifRange = req.headers['if-range'];
      const range = ifRange && ifRange !== info.etag ? null : parseRange(req.headers.range, info.size);
      if (range === 'unsatisfiable') {
        return reply.code(416).header('content-range', `bytes */${info.size}`).send();
      }
      reply.header('content-type', info.contentType);
      if (range) {
        reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
      }
      reply.header('content-length', range ? range.end - range.start + 1 : info.size);
      if (req.method === 'HEAD') return reply.send();

      const object = await store.get(name, range ?? undefined);
      if (!object) return notFound(reply); // deleted since head()
      return reply.send(object.stream);
    },
  });
}

/** The JSON 404, never cached (the name may be stored later). */
function notFound(reply: FastifyReply): never {
  reply.header('cache-control', 'no-store');
  throw notFoundError();
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}

/**
 * One `bytes=a-b`, `bytes=a-` or `bytes=-n` range. Anything else (malformed, several ranges) is ignored and
 * the whole object is served, as RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [first, last] = [match[1], match[2]];
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
