import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlFingerprint } from '@crawler/domain/url';
import {
  keySlot,
  readClusterNodes,
  restoreSlotOwner,
  sharedLocalRedisCluster,
  slotOwner,
  type ClusterNode,
} from '@crawler/testing';
import type { Role } from '../src/auth/roles';
import { startAuthKit, type AuthKit } from './auth-kit';

// `crawler shards …` against a coordinator on the local Redis Cluster: an admin moves a shard
// with URLs queued (progress on stderr, the result as JSON on stdout, exit 0), reads it back with
// `shards status` and `shards list`; an operator is refused (403, exit 1). The shard ({105},
// FRONTIER_SHARDS 128) is a tag no other suite uses; afterAll moves its slot home.
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';
const BIN = fileURLToPath(new URL('../bin/crawler.mjs', import.meta.url));
const SHARD = 105;

describe.skipIf(!WITH_CLUSTER)('crawler shards (on a Redis Cluster)', () => {
  let kit: AuthKit;
  let home: ClusterNode | undefined;
  let port = 0;
  const slot = keySlot(`{${SHARD}}`);

  function crawler(args: string[], as: Role): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        {
          env: {
            ...process.env,
            DATA_DIR: kit.env.dataDir,
            COORDINATOR_URL: kit.url,
            CRAWLER_API_TOKEN: kit.accounts[as].token,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
      );
    });
  }

  beforeAll(async () => {
    const cluster = await sharedLocalRedisCluster();
    port = cluster.ports[0]!;
    home = slotOwner(await readClusterNodes(port), slot);
    kit = await startAuthKit('shard-move-cli', {
      REDIS_URL: cluster.url,
      REDIS_CLUSTER: '1',
      FRONTIER_SHARDS: '128',
    });
    const { frontier } = kit.coordinator.services;
    const hosts: string[] = [];
    for (let i = 0; hosts.length < 4; i++)
      if (frontier.shardOf(`h${i}.cli-move.test`) === SHARD) hosts.push(`h${i}.cli-move.test`);
    await frontier.enqueue(
      hosts.flatMap((host) =>
        [0, 1, 2].map((i) => {
          const url = `http://${host}/${i}`;
          return { url, urlFp: urlFingerprint(url), host, depth: 0, source: 'seed' as const };
        }),
      ),
    );
  }, 90_000);

  afterAll(async () => {
    if (home) await restoreSlotOwner(slot, home).catch(() => undefined);
    await kit?.stop();
  });

  it('moves a shard, printing progress and the result, and reads it back', async () => {
    const from = home!;
    const masters = (await readClusterNodes(port)).filter((n) => n.master);
    const to = masters.filter((m) => m.id !== from.id).sort((a, b) => a.port - b.port)[0]!;
    const address = (n: ClusterNode) => `${n.host}:${n.port}`;

    const nodes = await crawler(['shards', 'nodes'], 'viewer');
    expect(nodes.code, nodes.err).toBe(0);
    expect(JSON.parse(nodes.out)).toMatchObject({ cluster: true });
    expect((JSON.parse(nodes.out) as { nodes: unknown[] }).nodes).toHaveLength(masters.length);

    const refused = await crawler(
      ['shards', 'move', String(SHARD), '--to', address(to)],
      'operator',
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/→ 403/);

    const moved = await crawler(
      ['shards', 'move', String(SHARD), '--to', address(to), '--keys-per-batch', '2'],
      'admin',
    );
    expect(moved.code, moved.err).toBe(0);
    const result = JSON.parse(moved.out) as Record<string, unknown>;
    expect(result).toMatchObject({
      shard: SHARD,
      status: 'done',
      from: address(from),
      to: address(to),
      frozen: false,
    });
    expect(result.keys_moved).toBe(result.keys_total);
    expect(moved.err).toMatch(/\] done {2}(\d+)\/\1 keys \(100%\) {2}\S+ → \S+/);
    expect(slotOwner(await readClusterNodes(port), slot)?.id).toBe(to.id);

    const status = await crawler(['shards', 'status', String(SHARD)], 'viewer');
    expect(status.code, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ status: 'done', to: address(to) });
    const list = await crawler(['shards', 'list'], 'viewer');
    expect(list.code, list.err).toBe(0);
    const items = (JSON.parse(list.out) as { items: Array<{ shard: number; node: string }> }).items;
    expect(items).toHaveLength(128);
    expect(items[SHARD]).toMatchObject({ node: address(to), frozen: false });

    // Again: the shard is there already, so nothing moves.
    const again = await crawler(['shards', 'move', String(SHARD), '--to', to.id], 'admin');
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ status: 'done', noop: true });
  }, 60_000);

  it('says how to call it when the shard or the node is missing', async () => {
    const bad = await crawler(['shards', 'move', 'x', '--to', 'a:1'], 'admin');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/SHARD must be a shard number/);
    const noTo = await crawler(['shards', 'move', '3'], 'admin');
    expect(noTo.code).toBe(2);
  });
});
