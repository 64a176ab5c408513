import { BlockList, isIP } from 'node:net';

// IANA special-purpose IPv4 ranges plus everything else an outside URL must never reach.
const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes 255.255.255.255
] as const) {
  blockedV4.addSubnet(net, prefix, 'ipv4');
}

// IPv6 is allowed only inside global unicast 2000::/3; these are the non-public parts of it.
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 23], // IETF protocol assignments (Teredo 2001::/32 is unwrapped before this check)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

/** True only for an address that is safe to contact on behalf of a user: globally routable unicast. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !blockedV4.check(ip, 'ipv4');
  if (family !== 6) return false;
  const words = ipv6Words(ip);
  if (!words) return false;
  const [w0, w1, w2, w3] = words;
  const embedded = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const startsWith = (prefix: number[]) => prefix.every((w, i) => words[i] === w);
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d reach the embedded IPv4 address.
  if (startsWith([0, 0, 0, 0, 0, 0xffff]) || startsWith([0x64, 0xff9b, 0, 0, 0, 0])) {
    return isPublicAddress(embedded(words[6], words[7]));
  }
  if (w0 === 0x2002) return isPublicAddress(embedded(w1, w2)); // 6to4
  if (w0 === 0x2001 && w1 === 0) {
    // Teredo: server address in words 2-3, client address obfuscated (bit-flipped) in words 6-7.
    return isPublicAddress(embedded(w2, w3)) && isPublicAddress(embedded(~words[6] & 0xffff, ~words[7] & 0xffff));
  }
  const normal = words.map((w) => w.toString(16)).join(':');
  // Outside 2000::/3 lies ::, ::1, IPv4-compatible ::/96, unique-local, link-local, multicast and the rest.
  return globalUnicastV6.check(normal, 'ipv6') && !blockedV6.check(normal, 'ipv6');
}

/** The eight 16-bit words of an IPv6 address (zone id dropped), or null if it does not parse. */
function ipv6Words(ip: string): number[] | null {
  let host: string;
  try {
    // The WHATWG serialiser yields lower-case hex words, one `::` at most, no dotted quad.
    host = new URL(`http://[${ip.split('%')[0]}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = host.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  const words = [...h, ...fill, ...t].map((g) => parseInt(g, 16));
  return words.length === 8 && words.every((w) => w >= 0 && w <= 0xffff) ? words : null;
}
