import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@crawler/adapters/log';
import { urlFingerprint } from '@crawler/domain/url';
import {
  connectRedis,
  deleteKeysWithPrefix,
  SlotMigrator,
  type ClusterNode,
  type RedisClient,
} from '@crawler/adapters/redis';
import { Frontier, type EnqueueUrl, type HostLease } from '@crawler/frontier';
import {
  countKeysInSlot,
  keySlot,
  readClusterNodes,
  restoreSlotOwner,
  sharedLocalRedisCluster,
  slotOwner,
  uniquePrefix,
} from '@crawler/testing';
import { makeTestEnv, type TestEnv } from '../../test/test-env';
import { AppError } from '../api/app-error';
import type { Caller } from '../auth/caller';
import type { Actor } from '../audit/audit-entry';
import { migrate } from '../db/migrate';
import { createDb } from '../db/prisma';
import { Store } from '../db/store';
import { shardMoveKeys } from '../keys';
import { addressOf } from './cluster-access';
import { listRedisNodes } from './list-redis-nodes';
import { listShards } from './list-shards';
import { getShardMove, moveShard, type ShardMoveDeps } from './move-shard';
import type { ShardMoveView } from './move-shard.types';

/**
 * `crawler shards move` on the local 3-master cluster, through the service the API calls: a
 * shard with URLs queued and a lease open moves to another master (slot owner changed, every URL
 * still there, the lease still current, the shard thawed, the move audited and in the shard
 * map); a move stopped half-way (interrupted between two rounds of keys, or a coordinator that
 * died after IMPORTING, or half-way through assigning) is finished by running it again; moving
 * to the owner only thaws; a move whose lock another coordinator took over stops. The shards
 * used ({100} … {103}, {106}; FRONTIER_SHARDS 128) are tags no other suite on the shared cluster
 * uses, so moving their slots disturbs nobody; afterAll moves every slot home.
 */
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';
const SHARDS = 128;
/** The shards these tests move. */
const SHARDS_MOVED = [100, 101, 102, 103, 106];
const OPTS = { shards: SHARDS, leaseMs: 30_000, maxUrlsPerLease: 50, defaultGapMs: 1 } as const;

const ADMIN: Caller = {
  userId: '00000000-0000-0000-0000-000000000001',
  email: 'admin@test.local',
  role: 'admin',
  via: 'token',
  tokenId: null,
  tokenName: 'cli',
  sessionIdHash: null,
};
const actor: Actor = { caller: ADMIN, request: null };

describe.skipIf(!WITH_CLUSTER)('moving a shard between Redis Cluster masters', () => {
  let env: TestEnv;
  let store: Store;
  let redis: RedisClient;
  let frontier: Frontier;
  let deps: ShardMoveDeps;
  let masters: ClusterNode[] = [];
  const prefix = uniquePrefix('shard-move-svc');
  /** slot → its owner before the tests (put back in afterAll). */
  const home = new Map<number, ClusterNode>();
  const migrator = new SlotMigrator();

  const slotOf = (shard: number) => keySlot(`{${shard}}`);
  const ownerOf = async (slot: number) =>
    slotOwner(await readClusterNodes(masters[0]!.port), slot)!;
  const otherThan = (node: ClusterNode, but?: ClusterNode) =>
    masters.filter((m) => m.id !== node.id && m.id !== but?.id).sort((a, b) => a.port - b.port)[0]!;
  /** Each master's own view agrees: `node` serves `slot`, and nobody migrates or imports it. */
  const expectSettledOn = async (slot: number, node: ClusterNode) => {
    for (const m of masters) {
      const view = await readClusterNodes(m.port);
      expect(slotOwner(view, slot)?.id, `owner in ${m.port}'s view`).toBe(node.id);
      const me = view.find((n) => n.id === m.id)!;
      expect(me.migrating.has(slot) || me.importing.has(slot)).toBe(false);
    }
  };
  const frozen = async (shard: number) =>
    (await redis.hget(frontier.keys.stats(shard), 'moving')) === '1';

  function hostsOfShard(shard: number, n: number): string[] {
    const out: string[] = [];
    for (let i = 0; out.length < n; i++)
      if (frontier.shardOf(`h${i}.svc-move.test`) === shard) out.push(`h${i}.svc-move.test`);
    return out;
  }
  /** `hosts` hosts of `shard` with `perHost` URLs each queued: its slot, owner, a target, the URLs. */
  async function queued(shard: number, hosts: number, perHost: number) {
    const slot = slotOf(shard);
    const from = home.get(slot)!;
    const urls: EnqueueUrl[] = hostsOfShard(shard, hosts).flatMap((host) =>
      Array.from({ length: perHost }, (_, i) => {
        const url = `http://${host}/p/${i}`;
        return { url, urlFp: urlFingerprint(url), host, depth: 0 };
      }),
    );
    expect((await frontier.enqueue(urls)).accepted).toBe(urls.length);
    return { slot, from, to: otherThan(from), urls };
  }
  /** Leases and completes until nothing is left; the url_fps fetched. */
  async function drain(): Promise<string[]> {
    const got: string[] = [];
    for (let idle = 0; idle < 20;) {
      const leases = await frontier.lease('drain', 20);
      if (leases.length === 0) {
        idle++;
        await sleep(20);
        continue;
      }
      idle = 0;
      for (const l of leases) {
        got.push(...l.urls.map((u) => u.urlFp));
        expect(await complete(l)).toBe(true);
      }
    }
    return got;
  }
  const complete = (l: HostLease) =>
    frontier.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 1 });
  /** Waits until a move started with `wait_ms: 0` stops running. */
  async function settled(shard: number): Promise<ShardMoveView> {
    for (let i = 0; i < 400; i++) {
      const m = await getShardMove(deps, { shard });
      if (m.status !== 'running') return m;
      await sleep(25);
    }
    throw new Error(`the move of shard ${shard} did not end`);
  }

  beforeAll(async () => {
    env = makeTestEnv();
    await migrate(env.config.DATABASE_URL);
    store = new Store(createDb(env.config.DATABASE_URL));
    const cluster = await sharedLocalRedisCluster();
    redis = await connectRedis(cluster.url, { cluster: true });
    frontier = new Frontier(redis, { prefix, ...OPTS });
    deps = { redis, frontier, store, log: createLogger('shard-move', 'silent') };
    masters = (await readClusterNodes(cluster.ports[0]!)).filter((n) => n.master);
    for (const shard of SHARDS_MOVED) {
      const slot = slotOf(shard);
      expect(Number(await redis.cluster('KEYSLOT', frontier.keys.ready(shard)))).toBe(slot);
      home.set(slot, await ownerOf(slot));
    }
  });

  afterAll(async () => {
    for (const [slot, owner] of home) await restoreSlotOwner(slot, owner).catch(() => undefined);
    if (frontier) {
      for (const shard of SHARDS_MOVED) await frontier.thawShard(shard);
      await deleteKeysWithPrefix(redis, prefix);
    }
    redis?.disconnect();
    await store?.disconnect();
    await env?.cleanup();
  });

  it('moves a shard with URLs queued and a lease open: nothing lost, thawed, audited', async () => {
    const shard = 100;
    const { slot, from, to, urls } = await queued(shard, 4, 30);
    const [open] = await frontier.lease('agent-1', 1);
    expect(open?.shard).toBe(shard);
    const keysBefore = await countKeysInSlot(from, slot);
    expect(keysBefore).toBeGreaterThan(4);

    const move = await moveShard(deps, actor, { shard, to: addressOf(to), keys_per_batch: 3 });
    expect(move).toMatchObject({
      shard,
      slot,
      status: 'done',
      phase: 'done',
      from: addressOf(from),
      to: addressOf(to),
      to_id: to.id,
      noop: false,
      resumed: false,
      keys_total: keysBefore,
      keys_moved: keysBefore,
      batches: Math.ceil(keysBefore / 3),
      shards: [shard],
      by: 'token cli (admin@test.local)',
      error: null,
      frozen: false,
    });
    await expectSettledOn(slot, to);
    expect(await countKeysInSlot(from, slot)).toBe(0);
    expect(await countKeysInSlot(to, slot)).toBe(keysBefore);
    expect(await frozen(shard)).toBe(false);

    // The lease opened before the move is still current; every URL is there to be fetched.
    expect(await complete(open!)).toBe(true);
    const fetched = [...open!.urls.map((u) => u.urlFp), ...(await drain())];
    expect(fetched.sort()).toEqual(urls.map((u) => u.urlFp).sort());

    const audit = await store.audit.list({ action: 'shards.move' }, undefined, 10);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      target: `shard:${shard}`,
      actorLabel: 'token cli (admin@test.local)',
      before: { node: addressOf(from) },
      after: { node: addressOf(to), status: 'done', keys_moved: keysBefore },
    });
    // The shard map and the shards list know the new owner, and the move.
    const recorded = (await store.fleet.shardMap()).find((r) => r.shard === shard);
    expect(recorded?.node).toBe(addressOf(to));
    const list = await listShards(deps, { cursor: shard - 1, limit: 1 });
    expect(list.items[0]).toMatchObject({
      shard,
      node: addressOf(to),
      frozen: false,
      move: { status: 'done', to: addressOf(to) },
    });
    expect(list.items[0]!.node_since).not.toBeNull();
    const nodes = await listRedisNodes(deps);
    expect(nodes.cluster).toBe(true);
    expect(nodes.nodes.map((n) => n.id).sort()).toEqual(masters.map((m) => m.id).sort());
    expect(nodes.nodes.reduce((n, x) => n + x.shards, 0)).toBe(SHARDS);

    // Moving it to the node that serves it changes nothing but thaws a frozen shard.
    await frontier.freezeShard(shard);
    const again = await moveShard(deps, actor, { shard, to: to.id });
    expect(again).toMatchObject({ status: 'done', noop: true, keys_moved: 0, frozen: false });
    await expectSettledOn(slot, to);
  });

  it('resumes a move interrupted between two rounds of keys, and refuses a second mover', async () => {
    const shard = 101;
    const { slot, from, to, urls } = await queued(shard, 10, 5);
    const keysBefore = await countKeysInSlot(from, slot);

    const stop = new AbortController();
    const first = await moveShard(
      deps,
      actor,
      { shard, to: addressOf(to), keys_per_batch: 2, wait_ms: 0 },
      { pauseMs: 30, signal: stop.signal },
    );
    expect(first.status).toBe('running');
    // One move of a slot at a time.
    const second = await moveShard(deps, actor, { shard, to: addressOf(to) }).catch(
      (e: unknown) => e,
    );
    expect(second).toBeInstanceOf(AppError);
    expect(second).toMatchObject({ code: 'CONFLICT', details: { reason: 'SHARD_MOVE_RUNNING' } });
    while ((await getShardMove(deps, { shard })).keys_moved < 4) await sleep(10);
    stop.abort(new Error('test stop'));
    const stopped = await settled(shard);
    expect(stopped).toMatchObject({
      status: 'interrupted',
      phase: 'moving_keys',
      frozen: true,
      error: { code: 'SHARD_MOVE_INTERRUPTED' },
    });
    expect(stopped.error!.message).toMatch(/stays frozen/);
    // Half-moved: keys on both sides, the source still migrating to the target.
    expect(await countKeysInSlot(to, slot)).toBeGreaterThanOrEqual(4);
    expect(await countKeysInSlot(from, slot)).toBeGreaterThan(0);
    expect((await migrator.self(from)).migrating.get(slot)).toBe(to.id);
    // Every shard is listed meanwhile, though the reads of this one are redirected (ASK).
    const all = await listShards(deps, { limit: SHARDS });
    expect(all.items).toHaveLength(SHARDS);
    expect(all.items[shard]).toMatchObject({
      node: addressOf(from),
      hosts: 10,
      queued_urls: urls.length,
      frozen: true,
      move: { status: 'interrupted' },
    });

    // Another target is refused while the slot is half-way to this one.
    const elsewhere = await moveShard(deps, actor, {
      shard,
      to: addressOf(otherThan(from, to)),
    }).catch((e: unknown) => e);
    expect(elsewhere).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'SHARD_MOVE_OTHER_TARGET' },
    });

    const resumed = await moveShard(deps, actor, { shard, to: addressOf(to) });
    expect(resumed).toMatchObject({
      status: 'done',
      resumed: true,
      frozen: false,
      keys_total: keysBefore,
    });
    expect(resumed.keys_moved).toBe(keysBefore);
    await expectSettledOn(slot, to);
    expect((await drain()).sort()).toEqual(urls.map((u) => u.urlFp).sort());
    const audit = await store.audit.list(
      { action: 'shards.move', target: `shard:${shard}` },
      undefined,
      10,
    );
    expect(audit.map((a) => (a.after as { status: string }).status)).toEqual([
      'done',
      'interrupted',
    ]);
  });

  it('finishes a move whose coordinator died after IMPORTING, or half-way through assigning', async () => {
    /** A frozen shard with URLs queued, as a coordinator left it when it died mid-move. */
    async function frozenWithUrls(shard: number) {
      const q = await queued(shard, 3, 4);
      await frontier.freezeShard(shard);
      return q;
    }
    /** The move ran again: done, the slot settled on the target, every URL there to fetch. */
    async function expectFinished(
      move: ShardMoveView,
      m: { slot: number; to: ClusterNode; urls: EnqueueUrl[] },
    ) {
      expect(move).toMatchObject({ status: 'done', resumed: true, frozen: false });
      await expectSettledOn(m.slot, m.to);
      expect((await drain()).sort()).toEqual(m.urls.map((u) => u.urlFp).sort());
    }

    // Died after step 1: the target imports, the source does not migrate yet.
    const importing = await frozenWithUrls(102);
    await migrator.markImporting(importing.slot, importing.to, importing.from);
    await expectFinished(
      await moveShard(deps, actor, { shard: 102, to: addressOf(importing.to) }),
      importing,
    );

    // Died in step 4: every key moved, the target assigned the slot, the other masters not told.
    const assigning = await frozenWithUrls(103);
    const { slot, from, to } = assigning;
    await migrator.beginSlotMigration(slot, from, to);
    await migrator.moveSlotKeys(slot, from, to);
    await migrator.withNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
    const keys = await countKeysInSlot(to, slot);
    const move = await moveShard(deps, actor, { shard: 103, to: addressOf(to) });
    // Nothing left to move: the keys the dead coordinator moved count as moved.
    expect([move.keys_total, move.keys_moved, move.batches]).toEqual([keys, keys, 0]);
    await expectFinished(move, assigning);
  });

  it('goes no further once another coordinator took its lock over, and leaves the shard to it', async () => {
    const shard = 106;
    const { slot, from, to } = await queued(shard, 3, 4);
    // This coordinator stalls past the lock's expiry just as it freezes the shard: another takes
    // the lock and freezes the shard to move it (a real Frontier, with that race put in).
    const lock = shardMoveKeys(prefix).lock(slot);
    const raced = Object.create(frontier, {
      freezeShard: {
        value: async (s: number) => {
          await redis.set(lock, 'another-coordinator', 'PX', 60_000);
          await frontier.freezeShard(s);
        },
      },
    }) as Frontier;

    const move = await moveShard({ ...deps, frontier: raced }, actor, { shard, to: addressOf(to) });
    expect(move).toMatchObject({
      status: 'interrupted',
      error: { code: 'SHARD_MOVE_INTERRUPTED' },
      frozen: true,
    });
    expect(move.error!.message).toMatch(/lock was (lost|taken over)/);
    // No slot step without the lock; the other coordinator's freeze and lock stand.
    await expectSettledOn(slot, from);
    expect(await frozen(shard)).toBe(true);
    expect(await redis.get(lock)).toBe('another-coordinator');
    await redis.del(lock);
  });

  it('refuses a shard out of range and a node that is not a master of the cluster', async () => {
    const outOfRange = await moveShard(deps, actor, {
      shard: SHARDS,
      to: addressOf(masters[0]!),
    }).catch((e: unknown) => e);
    expect(outOfRange).toMatchObject({
      code: 'BAD_REQUEST',
      details: { reason: 'SHARD_OUT_OF_RANGE' },
    });
    const unknown = await moveShard(deps, actor, { shard: 100, to: '127.0.0.1:1' }).catch(
      (e: unknown) => e,
    );
    expect(unknown).toMatchObject({
      code: 'BAD_REQUEST',
      details: { reason: 'SHARD_MOVE_UNKNOWN_NODE' },
    });
    await expect(getShardMove(deps, { shard: 5 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
