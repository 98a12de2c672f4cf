// Where a webhook may deliver: its URL's host is resolved, and every address it resolves to must be a
// public one. Loopback, private (RFC 1918, shared 100.64/10), link-local, unique-local, unspecified,
// multicast and reserved addresses are refused (an IPv4 address written as IPv4-mapped IPv6 too), so
// an owner cannot make the server post into its own network. The check runs when a webhook is created
// or changed and again at every delivery (DNS may have changed since), and the sender connects to the
// address checked, never resolving the name a second time (no DNS rebinding between check and connect).
// `STORYLINE_WEBHOOK_ALLOW_PRIVATE=1` lets receivers on the same host or LAN through.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export type AddressCheck = { ok: true; address: CheckedAddress } | { ok: false; problem: string };

/** How long a name may take to resolve before the check gives up. */
const LOOKUP_TIMEOUT_MS = 5000;

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network" (0.0.0.0 reaches the local host)
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['fc00::', 7], // unique-local
  ['ff00::', 8], // multicast
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address is one a webhook may not reach (IPv4-mapped IPv6 addresses are checked as IPv4). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return REFUSED.check(mapped[1]!, 'ipv4');
  return REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class WebhookAddresses {
  constructor(private readonly allowPrivate: boolean) {}

  /** The address to connect to for `hostname` (a URL's, brackets and all), or why there is none. */
  async resolve(hostname: string): Promise<AddressCheck> {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    let addresses: CheckedAddress[];
    if (isIP(host) !== 0) {
      addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
    } else {
      try {
        addresses = (await withTimeout(lookup(host, { all: true, verbatim: true }), LOOKUP_TIMEOUT_MS)).map((entry) => ({
          address: entry.address,
          family: entry.family === 6 ? 6 : 4,
        }));
      } catch {
        return { ok: false, problem: `the host ${host} could not be resolved` };
      }
    }
    if (addresses.length === 0) return { ok: false, problem: `the host ${host} could not be resolved` };
    if (!this.allowPrivate) {
      const refused = addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) {
        return {
          ok: false,
          problem: `the host ${host} resolves to ${refused.address}, a loopback, private, link-local or unique-local address (the operator allows those with STORYLINE_WEBHOOK_ALLOW_PRIVATE=1)`,
        };
      }
    }
    return { ok: true, address: addresses[0]! };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
