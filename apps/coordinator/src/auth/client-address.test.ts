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

  it('is the /64 of an IPv6 address, so one subscriber cannot rotate through its addresses', () => {
    const a = addressBucket('2001:db8:1:2:aaaa::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(a);
    expect(addressBucket('2001:0db8:0001:0002::9')).toBe(a);
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(a);
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });
});
