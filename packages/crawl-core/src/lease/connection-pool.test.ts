import { describe, expect, it } from 'vitest';
import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { ConnectionPool } from './connection-pool';
import { START_MARGIN_MS } from './host-pacer';

/** The two things a pool reads from the agent: its own lag and the host's live policy. */
function resources(policy: { gapMs?: number }): AgentResources {
  return {
    lag: { serverMs: (ms: number) => ms },
    policies: { get: () => policy },
  } as unknown as AgentResources;
}

const lease = { host: 'pool.test', gapMs: 40 } as HostLease;

describe('ConnectionPool', () => {
  it('one connection: the gap counts from the end of the last response, as the policy says now', async () => {
    const policy: { gapMs?: number } = {};
    const pool = new ConnectionPool(resources(policy), lease, 1);
    expect(pool.connections).toEqual([pool.lead]);
    expect(pool.multiConnection).toBe(false);
    const conn = pool.lead;
    await conn.wait();
    conn.done(1);
    let t0 = performance.now();
    await conn.wait();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(39.5);
    conn.done(1);
    // An operator's new gap applies at the next wait, even in the middle of a lease.
    policy.gapMs = 90;
    t0 = performance.now();
    await conn.wait();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(89.5);
    pool.setCrawlDelay(150);
    conn.done(1);
    expect(pool.paceMs()).toBe(150);
    expect(pool.remainingMs()).toBeGreaterThan(100);
  });

  it('several connections: starts spaced by the gap, each keeping the 10× rule for itself', async () => {
    const pool = new ConnectionPool(resources({}), lease, 3);
    expect(pool.connections).toHaveLength(3);
    expect(pool.connections).not.toContain(pool.lead);
    expect(pool.multiConnection).toBe(true);
    pool.open();
    const starts: number[] = [];
    await Promise.all(
      pool.connections.map(async (c) => {
        await c.wait();
        starts.push(performance.now());
      }),
    );
    starts.sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(39.5);
    // A slow answer on one connection holds that connection back, not the others.
    const slow = pool.connections[0]!;
    const other = pool.connections[1]!;
    slow.done(20);
    other.done(1);
    expect(pool.untilTurnMs(slow)).toBeGreaterThan(150);
    // Its own pace is spent: only the host gap (40 ms) and the margin are left.
    expect(pool.untilTurnMs(other)).toBeLessThanOrEqual(40 + START_MARGIN_MS + 5);
    // The host's pace for the frontier: the gap, or the slowest connection's share of it.
    expect(pool.paceMs()).toBe(200 / 3);
  });
});
