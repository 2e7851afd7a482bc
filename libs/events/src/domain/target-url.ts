// Where events may be sent (CONTRACTS "Events to applications", Safety): the URL rules, and which resolved addresses
// a production deployment refuses (loopback, private, link-local, unique-local and the like) unless
// EVENTS_ALLOW_PRIVATE_TARGETS=true. Checked when a subscription is set and again at every delivery.
import { BlockList, isIP } from 'node:net';

export interface TargetPolicy {
  production: boolean;
  /** EVENTS_ALLOW_PRIVATE_TARGETS: a production deployment that may send to its own network. */
  allowPrivate: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Addresses a production push never reaches: everything that is not a public unicast address. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** True for an address a production push may connect to. An IPv4-mapped IPv6 address is judged as its IPv4. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type TargetRefusal = 'invalid_url' | 'not_https' | 'private_target';

/**
 * The URL's own rules: absolute https:// (http:// only for a loopback host outside production), no user info,
 * no fragment. Returns the refusal, or undefined when the URL may be used (its addresses still to be checked).
 */
export function urlRefusal(raw: string, policy: TargetPolicy): TargetRefusal | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid_url';
  }
  if (raw.length > 2048 || url.username || url.password || url.hash || !url.hostname) return 'invalid_url';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && !policy.production && LOOPBACK_NAMES.has(url.hostname)) return undefined;
  return url.protocol === 'http:' ? 'not_https' : 'invalid_url';
}

/** The addresses of a host that the policy refuses (none outside production, or when private targets are allowed). */
export function refusedAddresses(addresses: readonly string[], policy: TargetPolicy): string[] {
  if (!policy.production || policy.allowPrivate) return [];
  return addresses.filter((a) => !isPublicAddress(a));
}

export const TARGET_REFUSALS: Record<TargetRefusal, string> = {
  invalid_url: 'the URL must be an absolute https:// URL without user info or fragment',
  not_https: 'the URL must be https:// (http:// only for a loopback host outside production)',
  private_target:
    'the URL resolves to a loopback, private, link-local or unique-local address (set EVENTS_ALLOW_PRIVATE_TARGETS=true to allow)',
};
