import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { FetchRefusal, HOST_REFUSED } from './errors.js';

export type Lookup = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/**
 * An undici Agent that resolves every hostname itself, refuses the connection if any resolved address is
 * not allowed, connects to the vetted address (so a second DNS answer cannot swap it) while keeping the
 * hostname for SNI and Host, and re-checks the peer address of the connected socket. A name that does not
 * resolve is refused with the same reason as a refused address (HOST_REFUSED).
 */
export function createGuardedAgent(opts: {
  lookup: Lookup;
  isAllowed: (ip: string) => boolean;
  connectTimeoutMs: number;
}): Agent {
  const connectVetted = buildConnector({ timeout: opts.connectTimeoutMs });
  const connect: buildConnector.connector = (options, callback) => {
    resolveVetted(options.hostname, opts.lookup, opts.isAllowed).then(
      (address) => {
        connectVetted({ ...options, hostname: address }, (err, socket) => {
          if (err) return callback(err, null);
          const remote = socket.remoteAddress;
          if (!remote || !opts.isAllowed(remote)) {
            socket.destroy();
            return callback(new FetchRefusal(HOST_REFUSED), null);
          }
          callback(null, socket);
        });
      },
      (err: unknown) => callback(err instanceof Error ? err : new FetchRefusal(HOST_REFUSED), null),
    );
  };
  return new Agent({ connect });
}

async function resolveVetted(hostname: string, lookup: Lookup, isAllowed: (ip: string) => boolean) {
  let addresses: { address: string }[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname }];
  } else {
    try {
      addresses = await lookup(hostname);
    } catch {
      throw new FetchRefusal(HOST_REFUSED);
    }
  }
  if (addresses.length === 0) throw new FetchRefusal(HOST_REFUSED);
  // One bad answer refuses the host: an attacker controls which answer a later lookup would pick.
  if (!addresses.every((a) => isAllowed(a.address))) throw new FetchRefusal(HOST_REFUSED);
  return addresses[0].address;
}
