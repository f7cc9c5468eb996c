import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  parseClusterNodes,
  RedisNodeUnavailableError,
  servesSlot,
  slotCount,
  slotOwner,
  SlotMigrationError,
  SlotMigrator,
} from './slot-migration';

const NODES = `07c37dfeb235213a872192d90877d0cd55635b91 10.0.0.2:6379@16379,redis-2 master - 0 1426238317239 2 connected 5461-10922
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 10.0.0.1:6379@16379,redis-1 myself,master - 0 0 1 connected 0-5460 [5461-<-07c37dfeb235213a872192d90877d0cd55635b91] [77->-292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f]
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 10.0.0.3:6379@16379 master - 0 1426238316232 3 connected 10923-16383 12000
6ec23923021cf3ffec47632106199cb7f496ce01 10.0.0.4:6379@16379,redis-4 slave 07c37dfeb235213a872192d90877d0cd55635b91 0 1426238316232 2 connected
c1a4f2e2fd5cb5ac9b1e0b7fbbd0d3b1aeb4a0a0 :0@0 master,noaddr - 0 0 0 disconnected
`;

describe('parseClusterNodes', () => {
  const nodes = parseClusterNodes(NODES, '10.9.9.9');

  it('reads addresses, announced host names, roles and slot ranges', () => {
    expect(nodes.map((n) => [n.host, n.port, n.hostname, n.master])).toEqual([
      ['10.0.0.2', 6379, 'redis-2', true],
      ['10.0.0.1', 6379, 'redis-1', true],
      ['10.0.0.3', 6379, null, true],
      ['10.0.0.4', 6379, 'redis-4', false],
      ['10.9.9.9', 0, null, true],
    ]);
    expect(nodes[2]!.slots).toEqual([
      [10923, 16383],
      [12000, 12000],
    ]);
    expect(slotCount(nodes[1]!)).toBe(5461);
  });

  it('reads the importing and migrating marks of a node’s own line', () => {
    const me = nodes[1]!;
    expect([...me.importing]).toEqual([[5461, '07c37dfeb235213a872192d90877d0cd55635b91']]);
    expect([...me.migrating]).toEqual([[77, '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f']]);
    expect(me.slots).toEqual([[0, 5460]]);
  });

  it('finds the master serving a slot', () => {
    expect(slotOwner(nodes, 5461)?.hostname).toBe('redis-2');
    expect(slotOwner(nodes, 0)?.hostname).toBe('redis-1');
    expect(servesSlot(nodes[0]!, 10923)).toBe(false);
  });
});

describe('SlotMigrator', () => {
  it('says a node that refuses connections is unavailable (retry later), not an internal error', async () => {
    // A port that was just free: nothing listens on it.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise<void>((r) => server.close(() => r()));

    const err = await new SlotMigrator({ connectTimeoutMs: 1000 })
      .readNodes({ host: '127.0.0.1', port })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisNodeUnavailableError);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE', retry: 'backoff' });
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
  });
});

describe('SlotMigrationError', () => {
  const coded = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(SlotMigrationError);
      const e = err as SlotMigrationError;
      return [e.code, e.retry];
    }
    throw new Error('did not throw');
  };

  it('codes what a slot step cannot read or refuses, each with its retry class', async () => {
    expect(coded(() => parseClusterNodes('abc 10.0.0.1:6379 master'))).toEqual([
      'REDIS_CLUSTER_NODES_INVALID',
      'give_up',
    ]);
    const nodes = parseClusterNodes(NODES);
    const gone = { ...nodes[0]!, id: 'f'.repeat(40) };
    // A node reset or replaced since the cluster was read: read it again and retry.
    expect(coded(() => new SlotMigrator().selfIn(nodes, gone))).toEqual([
      'REDIS_NODE_NOT_LISTED',
      'retry',
    ]);
    expect(new SlotMigrator().selfIn(nodes, nodes[1]!)).toBe(nodes[1]);
    await expect(
      new SlotMigrator().beginSlotMigration(1, nodes[0]!, nodes[0]!),
    ).rejects.toMatchObject({ code: 'REDIS_SLOT_SAME_NODE', retry: 'give_up' });
  });
});
