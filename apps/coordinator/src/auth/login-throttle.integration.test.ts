import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { keySlot, uniquePrefix } from '@crawler/testing';
import { LoginThrottle, loginThrottleKeys, type LoginLimits } from './login-throttle';

// The login limits' scripts against a real Redis: bursts, refill, give-back, the three limits
// at once, IPv6 prefixes, and atomicity under parallel attempts. Each test uses its own key
// prefix.
let redis: RedisClient;
const root = uniquePrefix('login');

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, root);
  redis.disconnect();
});

let n = 0;
const throttle = (limits: Partial<LoginLimits>) =>
  new LoginThrottle(redis, `${root}-${++n}`, {
    accountBurst: 3,
    accountRefillMs: 60_000,
    addressBurst: 100,
    addressRefillMs: 60_000,
    globalBurst: 0,
    globalRefillMs: 1000,
    ipv6PrefixBits: 56,
    ...limits,
  });

describe('LoginThrottle', () => {
  it('allows an account its burst, then refuses with the wait until an attempt comes back', async () => {
    const t = throttle({ accountBurst: 3, accountRefillMs: 60_000 });
    for (let i = 0; i < 3; i++)
      expect(await t.take('ann@example.com', '192.0.2.1')).toEqual({ ok: true });
    const refused = await t.take('ann@example.com', '192.0.2.2');
    expect(refused).toMatchObject({ ok: false, by: 'account' });
    if (refused.ok) throw new Error('unreachable');
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    // Another account from the same address is not affected; the email's case does not matter.
    expect(await t.take('bob@example.com', '192.0.2.1')).toEqual({ ok: true });
    expect(await t.take('ANN@example.com', '192.0.2.9')).toMatchObject({ ok: false });
  });

  it('an attempt comes back every refill interval, one at a time', async () => {
    const t = throttle({ accountBurst: 2, accountRefillMs: 300 });
    expect((await t.take('c@example.com', null)).ok).toBe(true);
    expect((await t.take('c@example.com', null)).ok).toBe(true);
    const refused = await t.take('c@example.com', null);
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.retryAfterMs).toBeLessThanOrEqual(300);
    await sleep(refused.retryAfterMs + 20);
    expect((await t.take('c@example.com', null)).ok).toBe(true);
    expect((await t.take('c@example.com', null)).ok).toBe(false);
  });

  it('limits a client address across accounts, an IPv6 /56 as one address', async () => {
    const t = throttle({ accountBurst: 100, addressBurst: 4 });
    // Four /64s of 2001:db8:aa:b00::/56 spend the one limit of that /56.
    for (let i = 1; i <= 4; i++)
      expect((await t.take(`u${i}@example.com`, `2001:db8:aa:b0${i}::${i}`)).ok).toBe(true);
    expect(await t.take('u5@example.com', '2001:db8:aa:bff:ffff::5')).toMatchObject({
      ok: false,
      by: 'address',
    });
    // The next /56 (…:c00::/56) and another /48 have their own.
    expect((await t.take('u5@example.com', '2001:db8:aa:c00::5')).ok).toBe(true);
    expect((await t.take('u6@example.com', '2001:db8:ab:b00::5')).ok).toBe(true);
    // An IPv4 peer reported as IPv4-mapped IPv6 is the same client as its IPv4 form.
    for (let i = 0; i < 4; i++)
      expect((await t.take(`v${i}@example.com`, '::ffff:192.0.2.50')).ok).toBe(true);
    expect((await t.take('v9@example.com', '192.0.2.50')).ok).toBe(false);
  });

  it('counts IPv6 clients by the configured prefix (LOGIN_IPV6_PREFIX)', async () => {
    const by64 = throttle({ accountBurst: 100, addressBurst: 1, ipv6PrefixBits: 64 });
    expect((await by64.take('w1@example.com', '2001:db8:cc:d1::1')).ok).toBe(true);
    expect((await by64.take('w2@example.com', '2001:db8:cc:d1::2')).ok).toBe(false);
    expect((await by64.take('w3@example.com', '2001:db8:cc:d2::1')).ok).toBe(true);
    const by48 = throttle({ accountBurst: 100, addressBurst: 1, ipv6PrefixBits: 48 });
    expect((await by48.take('w1@example.com', '2001:db8:cc:d1::1')).ok).toBe(true);
    expect((await by48.take('w2@example.com', '2001:db8:cc:ffff::1')).ok).toBe(false);
    expect((await by48.take('w3@example.com', '2001:db8:cd::1')).ok).toBe(true);
  });

  it('limits the whole installation across accounts and addresses, and says so', async () => {
    const t = throttle({
      accountBurst: 100,
      addressBurst: 100,
      globalBurst: 3,
      globalRefillMs: 60_000,
    });
    for (let i = 0; i < 3; i++)
      expect((await t.take(`g${i}@example.com`, `198.51.100.${i}`)).ok).toBe(true);
    const refused = await t.take('g9@example.com', '203.0.113.9');
    expect(refused).toMatchObject({ ok: false, by: 'global' });
    if (refused.ok) throw new Error('unreachable');
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    // A success gives its attempt back to the installation too.
    await t.giveBack('g0@example.com', '198.51.100.0');
    expect((await t.take('g9@example.com', '203.0.113.9')).ok).toBe(true);
    expect((await t.take('g10@example.com', '203.0.113.10')).ok).toBe(false);
  });

  it('names the client limit when it refuses along with the installation’s', async () => {
    const t = throttle({
      accountBurst: 1,
      addressBurst: 100,
      globalBurst: 1,
      globalRefillMs: 60_000,
    });
    expect((await t.take('k@example.com', '192.0.2.90')).ok).toBe(true);
    expect(await t.take('k@example.com', '192.0.2.91')).toMatchObject({ ok: false, by: 'account' });
    expect(await t.take('l@example.com', '192.0.2.91')).toMatchObject({ ok: false, by: 'global' });
  });

  it('says "both" when account and address are out, and then spends from neither', async () => {
    const t = throttle({ accountBurst: 1, addressBurst: 1 });
    expect((await t.take('d@example.com', '192.0.2.7')).ok).toBe(true);
    expect(await t.take('d@example.com', '192.0.2.7')).toMatchObject({ ok: false, by: 'both' });
    // Each limit stays out on its own: another account from the address, the account from
    // another address.
    expect(await t.take('e@example.com', '192.0.2.7')).toMatchObject({ ok: false, by: 'address' });
    expect(await t.take('d@example.com', '192.0.2.8')).toMatchObject({ ok: false, by: 'account' });
  });

  it('giveBack returns the attempt of a successful login, never beyond a full limit', async () => {
    const t = throttle({ accountBurst: 2, addressBurst: 2 });
    for (let i = 0; i < 10; i++) {
      expect((await t.take('f@example.com', '192.0.2.20')).ok).toBe(true);
      await t.giveBack('f@example.com', '192.0.2.20');
    }
    // Giving back more than was taken does not raise the burst above 2.
    await t.giveBack('f@example.com', '192.0.2.20');
    await t.giveBack('f@example.com', '192.0.2.20');
    expect((await t.take('f@example.com', '192.0.2.20')).ok).toBe(true);
    expect((await t.take('f@example.com', '192.0.2.20')).ok).toBe(true);
    expect((await t.take('f@example.com', '192.0.2.20')).ok).toBe(false);
  });

  it('parallel attempts cannot slip past the limit (one script spends from both at once)', async () => {
    const t = throttle({ accountBurst: 5, addressBurst: 1000 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.take('g@example.com', `198.51.100.${i}`)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
  });

  it('a burst of 0 turns a limit off', async () => {
    const t = throttle({ accountBurst: 0, addressBurst: 0 });
    for (let i = 0; i < 20; i++)
      expect((await t.take('h@example.com', '192.0.2.30')).ok).toBe(true);
    await t.giveBack('h@example.com', '192.0.2.30');
  });

  it('keys: no email in clear, all three in one cluster slot, and they expire once full again', async () => {
    const prefix = `${root}-keys`;
    const [account, address, global] = loginThrottleKeys(
      prefix,
      'Ann@Example.com',
      '::ffff:192.0.2.1',
    );
    expect(account).not.toContain('ann');
    expect(account).toBe(loginThrottleKeys(prefix, 'ann@example.com', null)[0]);
    expect(address).toBe(`${prefix}:{login}:address:192.0.2.1`);
    expect(loginThrottleKeys(prefix, 'a@b.c', '2001:db8:1:2aa::1')[1]).toBe(
      `${prefix}:{login}:address:2001:db8:1:200::/56`,
    );
    expect(global).toBe(`${prefix}:{login}:global`);
    expect(keySlot(account)).toBe(keySlot(address));
    expect(keySlot(global)).toBe(keySlot(address));
    const t = new LoginThrottle(redis, prefix, {
      accountBurst: 3,
      accountRefillMs: 1000,
      addressBurst: 3,
      addressRefillMs: 500,
      globalBurst: 3,
      globalRefillMs: 300,
      ipv6PrefixBits: 56,
    });
    await t.take('ann@example.com', '192.0.2.1');
    const ttls = [await redis.pttl(account), await redis.pttl(address), await redis.pttl(global)];
    expect(ttls[0]).toBeGreaterThan(0);
    expect(ttls[0]).toBeLessThanOrEqual(1000);
    expect(ttls[1]).toBeLessThanOrEqual(500);
    expect(ttls[2]).toBeGreaterThan(0);
    expect(ttls[2]).toBeLessThanOrEqual(300);
    await t.giveBack('ann@example.com', '192.0.2.1');
    expect(await redis.exists(account, address, global)).toBe(0);
  });
});
