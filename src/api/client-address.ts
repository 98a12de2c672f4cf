// The address a request comes from, as the sign-in throttle counts it and the failed sign-in log shows
// it. The socket's peer, unless that peer is a reverse proxy the operator named (STORYLINE_TRUSTED_PROXIES):
// then the client that proxy saw, from `X-Forwarded-For`. The header is read from the right (each proxy
// appends the address it was reached from), past the named proxies, to the first address none of them
// is; what a client wrote further left is never read, so a client cannot choose the address it is
// counted under. Without named proxies the header is ignored.
import { BlockList, isIP } from 'node:net';

/** The named proxies: addresses (`127.0.0.1`, `::1`) or subnets (`10.0.0.0/8`), IPv4 or IPv6. */
export type TrustedProxies = BlockList;

/** One entry of STORYLINE_TRUSTED_PROXIES, or null when it is neither an address nor a subnet. */
export function proxyRule(entry: string): { address: string; prefix: number | null; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, ...rest] = entry.trim().split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, prefix: null, family };
  const prefix = Number(prefixText);
  const widest = version === 4 ? 32 : 128;
  return /^\d+$/.test(prefixText) && prefix <= widest ? { address, prefix, family } : null;
}

/** The named proxies as one list (entries already checked with `proxyRule`; a bad one throws). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const rule = proxyRule(entry);
    if (rule === null) throw new Error(`not an IP address or subnet: "${entry}"`);
    if (rule.prefix === null) list.addAddress(rule.address, rule.family);
    else list.addSubnet(rule.address, rule.prefix, rule.family);
  }
  return list;
}

/** The client's address: the socket's peer, or the first address right to left in `X-Forwarded-For` that is no named proxy. */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, proxies: TrustedProxies | null): string {
  let address = peer === undefined ? 'unknown' : plainAddress(peer);
  if (proxies === null || forwardedFor === undefined) return address;
  const hops = forwardedFor.split(',');
  // Each step moves left past one named proxy; the header's length bounds the walk.
  while (isTrusted(proxies, address) && hops.length > 0) {
    const hop = hops.pop()!.trim();
    // A proxy that wrote no address gives nothing to trust: the request stays counted as the proxy's.
    if (isIP(hop) === 0) return address;
    address = plainAddress(hop);
  }
  return address;
}

function isTrusted(proxies: TrustedProxies, address: string): boolean {
  const version = isIP(address);
  return version !== 0 && proxies.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** An IPv4 address as itself, also when a dual-stack socket reports it IPv4-mapped (`::ffff:192.0.2.1`). */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}
