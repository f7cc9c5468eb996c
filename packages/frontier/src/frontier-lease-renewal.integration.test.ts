import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  frontierTestBed,
  leaseWhenReady,
  readyScore,
  serverNow,
  sleep,
  testUrl,
} from './testing/frontier-test-kit';
import type { HostLease } from './types';

/**
 * Leases that live only while their agent renews them, their progress, and releasing a dead
 * agent's leases — on the machine's Redis.
 */
const bed = frontierTestBed('renewal');
const make = bed.make;
beforeAll(bed.open);
afterAll(bed.close);
const urls = (host: string, n: number) =>
  Array.from({ length: n }, (_, i) => testUrl(host, `p${i}`));
function only(leases: readonly HostLease[]): HostLease {
  expect(leases).toHaveLength(1);
  return leases[0]!;
}

describe('lease TTL and renewal', () => {
  it('a lease not renewed expires after its TTL, not after the lease length', async () => {
    const f = make({ leaseMs: 60_000, leaseTtlMs: 300, defaultGapMs: 0 });
    await f.enqueue(urls('ttl.test', 3));
    const l = only(await f.lease('dead-agent', 1));
    expect(l.leaseMs).toBe(60_000);
    expect(l.ttlMs).toBe(300);
    await sleep(350);
    expect(await f.reclaimExpired()).toBe(1);
    const again = only(await f.lease('b', 1));
    expect(again.urls.map((u) => u.url)).toEqual(l.urls.map((u) => u.url));
    expect(await f.complete(l, { processed: 3, delayMs: 0, paceMs: 1 })).toBe(false);
  });

  it('renewal keeps a lease alive past its TTL, and reports leases no longer current', async () => {
    const f = make({ leaseMs: 60_000, leaseTtlMs: 300, defaultGapMs: 0 });
    await f.enqueue([...urls('renew-a.test', 2), ...urls('renew-b.test', 2)]);
    const [a, b] = await f.lease('agent', 2);
    expect(a && b).toBeTruthy();
    for (let i = 0; i < 4; i++) {
      await sleep(150);
      const before = await serverNow(bed.redis());
      const [da] = await f.renew([a!]);
      expect(da).toBeGreaterThanOrEqual(before + 300);
    }
    // b was not renewed: gone; a still current.
    expect(await f.reclaimExpired()).toBe(1);
    expect(await f.renew([a!, b!])).toEqual([expect.any(Number), null]);
    expect(await f.complete(a!, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(true);
    expect(await f.renew([a!])).toEqual([null]);
  });
});

describe('lease progress', () => {
  it('a reclaimed lease returns only the URLs not recorded as done, which count as processed', async () => {
    const f = make({ leaseMs: 60_000, leaseTtlMs: 300, defaultGapMs: 0 });
    const host = 'progress.test';
    await f.enqueue(urls(host, 5));
    const l = only(await f.lease('agent', 1));
    expect(l.urls).toHaveLength(5);
    expect(
      await f.recordProgress([
        { lease: l, index: 0 },
        { lease: l, index: 1 },
        { lease: l, index: 3 },
      ]),
    ).toBe(3);
    const before = await f.stats();
    await sleep(350);
    expect(await f.reclaimExpired()).toBe(1);
    const after = await f.stats();
    expect(after.queuedUrls - before.queuedUrls).toBe(2);
    const again = only(await leaseWhenReady(f, 1));
    expect(again.urls.map((u) => u.url)).toEqual([l.urls[2]!.url, l.urls[4]!.url]);
    // Marks of a lease no longer current are ignored.
    expect(await f.recordProgress([{ lease: l, index: 2 }])).toBe(0);
    expect(await f.complete(again, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(true);
    expect(await f.isIdle()).toBe(true);
  });

  it('a failed or completed lease keeps URLs finished out of order (marked) as done', async () => {
    const f = make({
      leaseMs: 60_000,
      leaseTtlMs: 60_000,
      defaultGapMs: 0,
      backoffBaseMs: 1,
      backoffMaxMs: 1,
    });
    const host = 'out-of-order.test';
    await f.enqueue(urls(host, 5));
    const l = only(await f.lease('agent', 1));
    // URL 0 done; URL 1 fails; URLs 2 and 4 had finished on other connections.
    await f.recordProgress([0, 2, 4].map((index) => ({ lease: l, index })));
    const before = await f.stats();
    expect(await f.fail(l, { index: 1, error: '5xx', retryAfterMs: 0 })).not.toBeNull();
    const after = await f.stats();
    expect(after.queuedUrls - before.queuedUrls).toBe(2);
    const again = only(await leaseWhenReady(f, 1));
    expect(again.urls.map((u) => u.url)).toEqual([l.urls[1]!.url, l.urls[3]!.url]);
    expect(again.urls[0]!.attempts).toBe(1);
    // Completed with no prefix done and its second URL (3) marked: only URL 1 comes back.
    await f.recordProgress([{ lease: again, index: 1 }]);
    expect(await f.complete(again, { processed: 0, delayMs: 0, paceMs: 1 })).toBe(true);
    const last = only(await leaseWhenReady(f, 1));
    expect(last.urls.map((u) => u.url)).toEqual([l.urls[1]!.url]);
    expect(await f.complete(last, { processed: 1, delayMs: 0, paceMs: 1 })).toBe(true);
    expect(await f.isIdle()).toBe(true);
  });

  it('a reclaimed host waits one gap before its next lease', async () => {
    const f = make({ leaseMs: 60_000, leaseTtlMs: 200, defaultGapMs: 2000 });
    const host = 'reclaim-gap.test';
    await f.enqueue(urls(host, 2));
    only(await f.lease('agent', 1));
    await sleep(250);
    const now = await serverNow(bed.redis());
    expect(await f.reclaimExpired()).toBe(1);
    expect(await readyScore(bed.redis(), f, host)).toBeGreaterThanOrEqual(now + 2000);
    expect(await f.lease('b', 1)).toEqual([]);
  });
});

describe('open leases and releasing an agent', () => {
  it('lists open leases with their agent and deadline, and releases one agent’s now', async () => {
    const f = make({ leaseMs: 60_000, leaseTtlMs: 1500, defaultGapMs: 0 });
    await f.enqueue([...urls('rel-a.test', 2), ...urls('rel-b.test', 2), ...urls('rel-c.test', 2)]);
    const dead = await f.lease('dead', 2);
    const alive = await f.lease('alive', 1);
    expect(dead).toHaveLength(2);
    expect(alive).toHaveLength(1);
    await f.recordProgress([{ lease: dead[0]!, index: 0 }]);
    const now = await serverNow(bed.redis());
    const open = await f.openLeases();
    expect(open).toHaveLength(3);
    expect(
      open
        .filter((o) => o.agentId === 'dead')
        .map((o) => o.host)
        .sort(),
    ).toEqual(dead.map((l) => l.host).sort());
    for (const o of open) expect(o.deadlineMs).toBeGreaterThan(now + 1000);

    expect(await f.releaseLeasesOf('dead')).toBe(2);
    expect(await f.releaseLeasesOf('dead')).toBe(0);
    expect((await f.openLeases()).map((o) => o.agentId)).toEqual(['alive']);
    for (const l of dead) expect(await f.renew([l])).toEqual([null]);
    // Queued again at once (less the URL recorded as done) and leasable: the operator judged
    // the agent dead.
    const back = (await leaseWhenReady(f, 3)).filter((l) => l.host !== alive[0]!.host);
    expect(back.map((l) => l.urls.length).sort()).toEqual([1, 2]);
    for (const l of dead)
      expect(await f.complete(l, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(false);
  });
});
