import { describe, expect, it } from 'vitest';
import { addressBucket, plainAddress } from './client-address';

describe('plainAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:c000:0201', '192.0.2.1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['::1', '::1'],
  ])('%s → %s', (ip, plain) => {
    expect(plainAddress(ip)).toBe(plain);
  });

  it.each([null, undefined, '', 'example.com', '1.2.3', '::ffff:1.2.3.999'])(
    '%j is not an address',
    (v) => {
      expect(plainAddress(v)).toBeNull();
    },
  );
});

describe('addressBucket', () => {
  it('is the IPv4 address itself, however the socket spelled it', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /56 of an IPv6 address by default, so one subscriber cannot rotate through its addresses', () => {
    const a = addressBucket('2001:db8:1:2aa:aaaa::1');
    expect(a).toBe('2001:db8:1:200::/56');
    // Every /64 of the /56 (the fourth group's last 8 bits), however it is spelled.
    expect(addressBucket('2001:db8:1:2ff:ffff:ffff:ffff:fffe')).toBe(a);
    expect(addressBucket('2001:0db8:0001:0200::9')).toBe(a);
    expect(addressBucket('2001:db8:1:201::1')).toBe(a);
    // The next /56, and another /48, are other clients.
    expect(addressBucket('2001:db8:1:300::1')).toBe('2001:db8:1:300::/56');
    expect(addressBucket('2001:db8:2:2aa::1')).not.toBe(a);
    expect(addressBucket('::1')).toBe('0:0:0:0::/56');
  });

  it.each([
    [64, '2001:db8:1:2aa::/64'],
    [48, '2001:db8:1::/48'],
    [60, '2001:db8:1:2a0::/60'],
    [32, '2001:db8::/32'],
    [128, '2001:db8:1:2aa:aaaa:0:0:1/128'],
  ])('any prefix length: /%i', (bits, bucket) => {
    expect(addressBucket('2001:db8:1:2aa:aaaa::1', bits)).toBe(bucket);
  });

  it('an IPv4 address is itself whatever the IPv6 prefix', () => {
    expect(addressBucket('203.0.113.7', 48)).toBe('203.0.113.7');
  });
});
