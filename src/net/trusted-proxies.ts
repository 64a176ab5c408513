// Which peers may tell us the client's address (TRUSTED_PROXIES, docs/deploy.md "Client addresses"). Fastify
// takes the client address (`req.ip`, which the per-address rate limits and the logs use) from
// X-Forwarded-For through proxy-addr: starting at the socket's peer, it walks the header from the right while
// each hop is trusted, and stops at the first untrusted one — that is the client. A client chooses everything
// left of what our own proxy appended, so only our proxies may be trusted, never "everything" (Fastify's
// `trustProxy: true`, which takes the left-most, forgeable entry).
//
// TRUSTED_PROXIES is either
// - a hop count N: the N nearest hops are our proxies, whatever their addresses (only when nothing can reach
//   the instances except through those proxies); 0 (or `none`) trusts nobody: `req.ip` is the socket's peer;
// - a comma-separated list of addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the named ranges
//   `loopback`, `linklocal` and `uniquelocal` (the private ranges): every hop in them is trusted, however many.
// Unset: in production, one hop, when it comes from loopback or a private range (a proxy beside us or on our
// private network); outside production, nobody.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export type TrustedProxies =
  | { kind: 'none' }
  | { kind: 'hops'; hops: number }
  /** Hops from these ranges are trusted; at most `maxHops` of them when set. */
  | { kind: 'ranges'; ranges: string[]; maxHops?: number };

const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** The production default: the peer itself, when it is on loopback or a private network. */
export const DEFAULT_TRUSTED_PROXIES: TrustedProxies = { kind: 'ranges', ranges: ['loopback', 'linklocal', 'uniquelocal'], maxHops: 1 };

/** One range in `address/prefix` form, or undefined when the entry is neither an address nor a CIDR range. */
function toSubnet(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * TRUSTED_PROXIES as written → the setting, or the problem to report. `production` chooses the default when
 * the value is unset.
 */
export function parseTrustedProxies(value: string | undefined, production: boolean): TrustedProxies | { problem: string } {
  if (value === undefined) return production ? DEFAULT_TRUSTED_PROXIES : { kind: 'none' };
  const text = value.trim();
  if (text.toLowerCase() === 'none') return { kind: 'none' };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 10) return { problem: `TRUSTED_PROXIES: a hop count must be at most 10 (got ${text})` };
    return hops === 0 ? { kind: 'none' } : { kind: 'hops', hops };
  }
  const entries = text.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !Object.hasOwn(NAMED_RANGES, e) && toSubnet(e) === undefined);
  if (bad.length > 0) {
    return {
      problem:
        'TRUSTED_PROXIES must be a hop count, none, or a comma-separated list of IP addresses, CIDR ranges ' +
        `(address/prefix), loopback, linklocal and uniquelocal; not understood: ${bad.map((e) => JSON.stringify(e)).join(', ')}`,
    };
  }
  return { kind: 'ranges', ranges: entries };
}

/**
 * Fastify's `trustProxy` for the setting: false (trust nobody), or proxy-addr's trust function
 * `(address, hop) => boolean`, hop 0 being the socket's peer and hop i the i-th X-Forwarded-For entry from the
 * right.
 */
export function trustProxyOption(setting: TrustedProxies): false | ((address: string, hop: number) => boolean) {
  switch (setting.kind) {
    case 'none':
      return false;
    case 'hops': {
      const { hops } = setting;
      return (_address, hop) => hop < hops;
    }
    case 'ranges': {
      const list = new BlockList();
      for (const entry of setting.ranges.flatMap((r) => (Object.hasOwn(NAMED_RANGES, r) ? NAMED_RANGES[r] : [r]))) {
        const subnet = toSubnet(entry);
        if (subnet) list.addSubnet(subnet.address, subnet.prefix, subnet.family);
      }
      const maxHops = setting.maxHops ?? Infinity;
      return (address, hop) => {
        if (hop >= maxHops) return false;
        const version = isIP(address);
        if (version === 0) return false; // not an address (a forged entry): never a proxy of ours
        try {
          return list.check(address, version === 4 ? 'ipv4' : 'ipv6'); // IPv4-mapped IPv6 matches IPv4 ranges
        } catch {
          return false;
        }
      };
    }
    default: {
      const unknown: never = setting;
      throw new Error(`unknown TRUSTED_PROXIES setting ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The client's address of a raw request (a WebSocket upgrade, which Fastify never sees), as `req.ip` would be with
 * `trustProxyOption(setting)`: proxy-addr's walk, from the socket's peer through X-Forwarded-For from the right, to
 * the first hop that is not trusted (or the left-most one).
 */
export function clientAddressOf(setting: TrustedProxies): (req: IncomingMessage) => string {
  const trust = trustProxyOption(setting);
  return (req) => {
    const peer = req.socket.remoteAddress ?? '';
    if (!trust) return peer;
    const header = req.headers['x-forwarded-for'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((entry) => entry.replace(/^ +| +$/g, '')) // as proxy-addr reads it: spaces only
      .filter((entry) => entry !== '')
      .reverse();
    const hops = [peer, ...forwarded];
    for (let i = 0; i < hops.length - 1; i++) if (!trust(hops[i], i)) return hops[i];
    return hops[hops.length - 1];
  };
}
