import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard: addresses the fetcher must never connect to (loopback, private, link-local,
 * carrier-grade NAT, multicast, reserved, cloud metadata) unless an explicit allow-list from
 * configuration names them. It is checked on the address actually connected.
 */
const DENIED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const DENIED_V6 = [
  // IPv4-compatible addresses (deprecated, RFC 4291), with the unspecified address and
  // loopback among them: ::7f00:1 is 127.0.0.1 to a stack that still honours them.
  ['::', 96],
  ['::1', 128],
  // Discard-only (RFC 6666).
  ['100::', 64],
  // Teredo (RFC 4380) and 6to4 (RFC 3056): tunnels whose addresses embed an IPv4 address
  // (2002:7f00:1:: carries 127.0.0.1) that a relay would connect to.
  ['2001::', 32],
  ['2002::', 16],
  ['2001:db8::', 32],
  // NAT64: the well-known prefix and the local-use one (RFC 8215) reach IPv4 addresses too.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated by RFC 3879, still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
] as const;

export type AddressVerdict =
  { ok: true } | { ok: false; reason: 'private_address' | 'invalid_address' };

export class NetworkGuard {
  private readonly denied = new BlockList();
  private readonly allowed = new BlockList();

  /** @param allowCidrs CIDRs to permit even though private (e.g. `127.0.0.0/8` for tests). */
  constructor(allowCidrs: readonly string[]) {
    for (const [net, bits] of DENIED_V4) this.denied.addSubnet(net, bits, 'ipv4');
    for (const [net, bits] of DENIED_V6) this.denied.addSubnet(net, bits, 'ipv6');
    for (const cidr of allowCidrs) {
      const [net, bits] = cidr.split('/');
      const family = isIP(net ?? '') === 6 ? 'ipv6' : 'ipv4';
      this.allowed.addSubnet(net ?? '', Number(bits), family);
    }
  }

  /** Whether the fetcher may connect to this IP address. */
  check(ip: string): AddressVerdict {
    const v = isIP(ip);
    if (v === 0) return { ok: false, reason: 'invalid_address' };
    let addr = ip;
    let family: 'ipv4' | 'ipv6' = v === 4 ? 'ipv4' : 'ipv6';
    // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped?.[1]) {
      addr = mapped[1];
      family = 'ipv4';
    }
    if (this.allowed.check(addr, family)) return { ok: true };
    if (this.denied.check(addr, family)) return { ok: false, reason: 'private_address' };
    return { ok: true };
  }
}
