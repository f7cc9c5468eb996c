import { isIP } from 'node:net';

/**
 * An address as the audit log and the login throttle record it: an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`, how a dual-stack socket reports IPv4 peers) as the IPv4 address it
 * carries, IPv6 in lower case; null for anything that is not an IP address.
 */
export function plainAddress(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v = isIP(ip);
  if (v === 4) return ip;
  if (v !== 6) return null;
  const groups = ipv6Groups(ip);
  if (groups && groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  return ip.toLowerCase();
}

/** The IPv6 prefix that counts as one client by default (LOGIN_IPV6_PREFIX). */
export const DEFAULT_IPV6_PREFIX_BITS = 56;

/**
 * What one client is, for rate limits: an IPv4 address, or the prefix of an IPv6 address of
 * `ipv6PrefixBits` bits (16–128), e.g. `2001:db8:1:200::/56`. One subscriber commonly holds a
 * whole /56 (RIPE-690; some a /48 or a /64), so counting its addresses one by one — or even its
 * /64s — would let it rotate through millions of them.
 */
export function addressBucket(ip: string, ipv6PrefixBits = DEFAULT_IPV6_PREFIX_BITS): string {
  const plain = plainAddress(ip);
  if (plain === null) return 'unknown';
  if (isIP(plain) === 4) return plain;
  const groups = ipv6Groups(plain);
  if (!groups) return plain;
  const bits = Math.min(128, Math.max(16, Math.trunc(ipv6PrefixBits)));
  const kept = groups.slice(0, Math.ceil(bits / 16)).map((g, i) => {
    const left = bits - 16 * i; // bits of this group inside the prefix
    return left >= 16 ? g : g & ((0xffff << (16 - left)) & 0xffff);
  });
  const text = kept.map((g) => g.toString(16)).join(':');
  return `${text}${kept.length < 8 ? '::' : ''}/${bits}`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted tail converted). */
function ipv6Groups(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<number>(fill).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}
