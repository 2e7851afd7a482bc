// The client address as rate limits count it: an IPv6 client is grouped by its /64 (one subscriber's network, the
// smallest block an ISP hands out, so whoever holds one holds 2^64 addresses: per address it would be 2^64
// counts), an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, in any spelling) as the IPv4 address it maps, every other
// address (IPv4, and IPv6 whose upper 64 bits are zero: loopback) as it is.
import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, an embedded dotted IPv4 tail included). */
function groupsOf(address: string): number[] {
  let text = address.split('%')[0] as string;
  const dotted = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The one key every request without a client address is counted under. listen() reads each connection's address
 * when it opens, so a TCP client always has one, even after it left (client-errors.ts); only a socket that never had
 * a peer (a test's in-process socket, a future Unix socket listener) lacks it. Those share one count: no client
 * gains a fresh count by hiding its address, and no request fails with a stack for it.
 */
export const NO_ADDRESS_KEY = 'no-address';

/**
 * The key a per-address rate limit counts `address` under (Express's `req.ip`, TRUST_PROXY applied): an IPv6
 * address by its /64 (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address (`::ffff:192.0.2.1` or `::ffff:c000:201`,
 * what a dual-stack listener reports for an IPv4 client) as its IPv4 address (`192.0.2.1`), so one client reached
 * over both listeners, or named both ways by a proxy's X-Forwarded-For, is one count; anything else unchanged.
 * Loopback stays one address: grouping the zero /64 would put every IPv4 client in one count.
 */
export function clientAddressKey(address: string | undefined): string {
  if (address === undefined) return NO_ADDRESS_KEY;
  if (isIPv4(address) || !isIPv6(address.split('%')[0] as string)) return address;
  const groups = groupsOf(address);
  const upper = groups.slice(0, 4);
  if (upper.every((g) => g === 0)) {
    const [g4, g5, g6, g7] = groups.slice(4) as [number, number, number, number];
    return g4 === 0 && g5 === 0xffff ? [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.') : address;
  }
  // The well-known NAT64 prefix (64:ff9b::/96) carries an IPv4 client in its last 32 bits: one address each too.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return address;
  return `${upper.map((g) => g.toString(16)).join(':')}::/64`;
}
