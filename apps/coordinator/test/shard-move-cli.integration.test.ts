import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOf } from '../src/shards/cluster-access';
import { startShardMoveKit, type ShardMoveKit } from './auth-kit';

// `crawler shards …` against a coordinator on the local Redis Cluster: an admin moves a shard
// with URLs queued (progress on stderr, the result as JSON on stdout, exit 0), reads it back with
// `shards status` and `shards list`; an operator is refused (403, exit 1). The shard ({105},
// FRONTIER_SHARDS 128) is a tag no other suite uses; afterAll moves its slot home.
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';
const SHARD = 105;

describe.skipIf(!WITH_CLUSTER)('crawler shards (on a Redis Cluster)', () => {
  let kit: ShardMoveKit;

  beforeAll(async () => {
    kit = await startShardMoveKit('shard-move-cli', SHARD, { hosts: 4, urlsPerHost: 3 });
  }, 90_000);

  afterAll(async () => {
    await kit?.stop();
  });

  it('moves a shard, printing progress and the result, and reads it back', async () => {
    const { home: from, to } = kit;

    const nodes = await kit.cli(['shards', 'nodes'], 'viewer');
    expect(nodes.code, nodes.err).toBe(0);
    expect(JSON.parse(nodes.out)).toMatchObject({ cluster: true });
    expect((JSON.parse(nodes.out) as { nodes: unknown[] }).nodes).toHaveLength(kit.masters.length);

    const refused = await kit.cli(
      ['shards', 'move', String(SHARD), '--to', addressOf(to)],
      'operator',
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/→ 403/);

    const moved = await kit.cli([
      'shards',
      'move',
      String(SHARD),
      '--to',
      addressOf(to),
      '--keys-per-batch',
      '2',
    ]);
    expect(moved.code, moved.err).toBe(0);
    const result = JSON.parse(moved.out) as Record<string, unknown>;
    expect(result).toMatchObject({
      shard: SHARD,
      status: 'done',
      from: addressOf(from),
      to: addressOf(to),
      frozen: false,
    });
    expect(result.keys_moved).toBe(result.keys_total);
    expect(moved.err).toMatch(/\] done {2}(\d+)\/\1 keys \(100%\) {2}\S+ → \S+/);
    expect((await kit.ownerNow())?.id).toBe(to.id);

    const status = await kit.cli(['shards', 'status', String(SHARD)], 'viewer');
    expect(status.code, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ status: 'done', to: addressOf(to) });
    const list = await kit.cli(['shards', 'list'], 'viewer');
    expect(list.code, list.err).toBe(0);
    const items = (JSON.parse(list.out) as { items: Array<{ shard: number; node: string }> }).items;
    expect(items).toHaveLength(128);
    expect(items[SHARD]).toMatchObject({ node: addressOf(to), frozen: false });

    // Again: the shard is there already, so nothing moves.
    const again = await kit.cli(['shards', 'move', String(SHARD), '--to', to.id]);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ status: 'done', noop: true });
  }, 60_000);

  it('says how to call it when the shard or the node is missing', async () => {
    const bad = await kit.cli(['shards', 'move', 'x', '--to', 'a:1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/SHARD must be a shard number/);
    const noTo = await kit.cli(['shards', 'move', '3']);
    expect(noTo.code).toBe(2);
  });
});
