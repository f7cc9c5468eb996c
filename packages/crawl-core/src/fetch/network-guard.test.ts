import { describe, expect, it } from 'vitest';
import { NetworkGuard } from './network-guard';

// The SSRF guard decides on the address actually connected: every non-public range is refused
// unless configuration allow-lists it, and an allow-list opens only what it names.
describe('NetworkGuard, default (no allow-list)', () => {
  const guard = new NetworkGuard([]);

  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback, far end of 127/8', '127.255.255.254'],
    ['"this network" 0/8', '0.0.0.0'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 172.16/12, last block', '172.31.255.255'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local', '169.254.1.1'],
    ['cloud metadata', '169.254.169.254'],
    ['carrier-grade NAT 100.64/10', '100.64.0.1'],
    ['carrier-grade NAT, last block', '100.127.255.254'],
    ['multicast', '224.0.0.251'],
    ['multicast, upper end', '239.255.255.250'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['documentation TEST-NET-1', '192.0.2.10'],
    ['benchmarking 198.18/15', '198.19.0.1'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 unique local fc00::/7 (fc)', 'fc00::1'],
    ['IPv6 unique local fc00::/7 (fd)', 'fd12:3456:789a::1'],
    ['IPv6 link-local fe80::/10', 'fe80::1'],
    ['IPv6 link-local fe80::/10, upper end', 'febf::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, upper case', '::FFFF:127.0.0.1'],
    ['IPv4-mapped loopback, hex (as WHATWG URL serializes it)', '::ffff:7f00:1'],
    ['IPv4-mapped loopback, fully written', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped metadata address', '::ffff:169.254.169.254'],
    ['IPv4-mapped private 10/8, hex', '::ffff:a00:1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['IPv4-compatible loopback ::/96', '::7f00:1'],
    ['IPv4-compatible loopback ::/96, dotted', '::127.0.0.1'],
    ['IPv4-compatible public address ::/96', '::808:808'],
    ['6to4 2002::/16 carrying loopback', '2002:7f00:1::1'],
    ['6to4 2002::/16 carrying a public address', '2002:808:808::1'],
    ['6to4 2002::/16, upper end', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['Teredo 2001::/32, upper end', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
    ['local-use NAT64 64:ff9b:1::/48, upper end', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['site-local fec0::/10', 'fec0::1'],
    ['site-local fec0::/10, upper end', 'feff:ffff::1'],
    ['discard-only 100::/64', '100::1'],
    ['discard-only 100::/64, upper end', '100::ffff:ffff:ffff:ffff'],
  ])('refuses %s (%s)', (_label, ip) => {
    expect(guard.check(ip)).toEqual({ ok: false, reason: 'private_address' });
  });

  it.each([
    ['public IPv4', '8.8.8.8'],
    ['public IPv4 next to 10/8', '11.0.0.1'],
    ['public IPv4 just above 172.16/12', '172.32.0.1'],
    ['public IPv4 just below 100.64/10', '100.63.255.255'],
    ['public IPv4 just above 100.64/10', '100.128.0.1'],
    ['public IPv4 next to link-local', '169.253.255.255'],
    ['public IPv4 below multicast', '223.255.255.255'],
    ['public IPv6', '2606:4700:4700::1111'],
    ['public IPv6 below fc00::/7', 'fbff::1'],
    ['public IPv6 (Google DNS) next to Teredo 2001::/32', '2001:4860:4860::8888'],
    ['public IPv6 just above Teredo 2001::/32', '2001:1::1'],
    ['public IPv6 just below 6to4 2002::/16', '2001:ffff::1'],
    ['public IPv6 just above 6to4 2002::/16', '2003::1'],
    ['public IPv6 just above discard-only 100::/64', '100:0:0:1::1'],
    ['public IPv6 just above local-use NAT64 64:ff9b:1::/48', '64:ff9b:2::1'],
    ['public IPv6 just above IPv4-compatible ::/96', '::1:0:0:1'],
    ['IPv4-mapped public address', '::ffff:8.8.8.8'],
    ['IPv4-mapped public address, hex', '::ffff:808:808'],
  ])('allows %s (%s)', (_label, ip) => {
    expect(guard.check(ip)).toEqual({ ok: true });
  });

  it.each(['example.com', '', '127.0.0.1.', '256.1.1.1', '[::1]', '2130706433', '1.2.3'])(
    'calls %j not an address (invalid_address)',
    (value) => {
      expect(guard.check(value)).toEqual({ ok: false, reason: 'invalid_address' });
    },
  );
});

describe('NetworkGuard with an allow-list', () => {
  const guard = new NetworkGuard(['127.0.0.0/8']);

  it('allows every address of the listed network', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3', '127.255.255.254'])
      expect(guard.check(ip), ip).toEqual({ ok: true });
  });

  it('allows the listed network in its IPv4-mapped IPv6 spellings too', () => {
    expect(guard.check('::ffff:127.0.0.1')).toEqual({ ok: true });
    expect(guard.check('::ffff:7f01:203')).toEqual({ ok: true });
  });

  it('still refuses every private network it does not list', () => {
    for (const ip of [
      '10.0.0.1',
      '10.255.255.255',
      '192.168.0.1',
      '172.16.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
    ])
      expect(guard.check(ip), ip).toEqual({ ok: false, reason: 'private_address' });
  });

  it('keeps allowing public addresses', () => {
    expect(guard.check('8.8.8.8')).toEqual({ ok: true });
    expect(guard.check('2606:4700:4700::1111')).toEqual({ ok: true });
  });

  it('combines several CIDRs, IPv4 and IPv6', () => {
    const g = new NetworkGuard(['10.0.0.0/8', 'fd00::/8']);
    expect(g.check('10.9.8.7')).toEqual({ ok: true });
    expect(g.check('fd00::1')).toEqual({ ok: true });
    expect(g.check('fc00::1')).toEqual({ ok: false, reason: 'private_address' });
    expect(g.check('127.0.0.1')).toEqual({ ok: false, reason: 'private_address' });
    expect(g.check('11.0.0.1')).toEqual({ ok: true });
  });

  it('a narrow allow-list does not open its neighbours', () => {
    const g = new NetworkGuard(['127.1.0.0/16']);
    expect(g.check('127.1.200.3')).toEqual({ ok: true });
    expect(g.check('127.0.0.1')).toEqual({ ok: false, reason: 'private_address' });
    expect(g.check('127.2.0.1')).toEqual({ ok: false, reason: 'private_address' });
  });
});
