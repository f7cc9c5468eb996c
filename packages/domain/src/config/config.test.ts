import { describe, expect, it } from 'vitest';
import { TRPC_CONSOLE_BATCH_ITEMS } from '../api';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('fills documented defaults from an empty environment', () => {
    const c = loadConfig({});
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(c.FRONTIER_SHARDS).toBe(64);
    expect(c.CRAWLER_NETWORK_ALLOW).toEqual([]);
    expect(c.userAgent).toContain('crawlerbot/0.1');
  });

  it('names each bad variable', () => {
    try {
      loadConfig({
        FRONTIER_SHARDS: 'many',
        CRAWLER_NETWORK_ALLOW: '127.0.0.1',
        REDIS_URL: 'nope',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as ConfigError).message;
      expect(msg).toContain('FRONTIER_SHARDS="many"');
      expect(msg).toContain('CRAWLER_NETWORK_ALLOW');
      expect(msg).toContain('REDIS_URL="nope"');
    }
  });

  it('parses CIDR allow-lists and booleans', () => {
    const c = loadConfig({ CRAWLER_NETWORK_ALLOW: '127.0.0.0/8, ::1/128', REDIS_CLUSTER: 'yes' });
    expect(c.CRAWLER_NETWORK_ALLOW).toEqual(['127.0.0.0/8', '::1/128']);
    expect(c.REDIS_CLUSTER).toBe(true);
  });
});

describe('lease TTL', () => {
  it('defaults to 15 s, or a request’s longest life + 5 s when that is longer', () => {
    expect(loadConfig({}).LEASE_TTL_MS).toBe(15_000);
    expect(loadConfig({ FETCH_TOTAL_TIMEOUT_MS: '30000' }).LEASE_TTL_MS).toBe(35_000);
    expect(loadConfig({ LEASE_TTL_MS: '20000' }).LEASE_TTL_MS).toBe(20_000);
  });

  it('refuses a TTL a request cannot fit in', () => {
    expect(() => loadConfig({ LEASE_TTL_MS: '12000', FETCH_TOTAL_TIMEOUT_MS: '10000' })).toThrow(
      /LEASE_TTL_MS=12000: must be at least FETCH_TOTAL_TIMEOUT_MS \+ 3000 \(13000\)/,
    );
  });
});

describe('lease length', () => {
  it('refuses a lease too short for one request', () => {
    expect(() => loadConfig({ LEASE_MS: '10000', FETCH_TOTAL_TIMEOUT_MS: '10000' })).toThrow(
      /LEASE_MS=10000/,
    );
    expect(loadConfig({ LEASE_MS: '25000', FETCH_TOTAL_TIMEOUT_MS: '10000' }).LEASE_MS).toBe(25000);
  });
});

describe('login under attack', () => {
  it('defaults: an installation-wide limit, IPv6 clients by /56, a bounded hash queue, batches of 20', () => {
    const c = loadConfig({});
    expect(c.LOGIN_GLOBAL_BURST).toBe(100);
    expect(c.LOGIN_GLOBAL_REFILL_MS).toBe(100);
    expect(c.LOGIN_IPV6_PREFIX).toBe(56);
    expect(c.LOGIN_HASH_QUEUE_MAX).toBe(8);
    expect(c.TRPC_MAX_BATCH_SIZE).toBe(20);
  });

  it('refuses an IPv6 prefix outside 16–128, no queue, and batches smaller than the console’s', () => {
    for (const [name, value] of [
      ['LOGIN_IPV6_PREFIX', '8'],
      ['LOGIN_IPV6_PREFIX', '129'],
      ['LOGIN_HASH_QUEUE_MAX', '0'],
      ['TRPC_MAX_BATCH_SIZE', String(TRPC_CONSOLE_BATCH_ITEMS - 1)],
    ] as const)
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
        new RegExp(`${name}="${value}"`),
      );
    expect(
      loadConfig({ TRPC_MAX_BATCH_SIZE: String(TRPC_CONSOLE_BATCH_ITEMS) }).TRPC_MAX_BATCH_SIZE,
    ).toBe(TRPC_CONSOLE_BATCH_ITEMS);
  });
});
