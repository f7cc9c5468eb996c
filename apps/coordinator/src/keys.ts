import { FrontierKeys } from '@crawler/frontier';
import { cappedHashKeys, type CappedHashKeys } from '@crawler/adapters/redis';
import { addressBucket, DEFAULT_IPV6_PREFIX_BITS } from './auth/client-address';
import { sha256Hex } from './auth/secrets';

/**
 * The one place that names the Redis keys the coordinator builds itself. The frontier's keys
 * (and the re-crawl schedule's, which live in its shards) are packages/frontier/src/keys.ts;
 * those the agents share with it (agents set, robots cache) packages/crawl-core/src/keys.ts; the
 * streams' and settings' packages/domain.
 */

/**
 * The keys of a frontier rebuild's scratch copy (`<prefix>:rebuild-<id>:{s}:…`): the same
 * shards, so each scratch key sits in the slot of its live twin and one script can merge them.
 */
export function rebuildScratchKeys(live: FrontierKeys, id: string): FrontierKeys {
  return new FrontierKeys(`${live.prefix}:rebuild-${id}`);
}

/**
 * BullMQ's key prefix for the coordinator's queues (the re-crawl sweep): one hash tag,
 * `{<prefix>:bull}`, as BullMQ needs on a Redis Cluster.
 */
export function bullPrefix(prefix: string): string {
  return `{${prefix}:bull}`;
}

/**
 * The three keys of a login's limits: the account's, the client address's (an IPv6 address by
 * its `ipv6PrefixBits` prefix, see auth/client-address.ts) and the installation's. All share the
 * hash tag `{login}` (one cluster slot), so one script spends from all three. The account is
 * named by the SHA-256 of its lower-cased email, so Redis holds no email addresses.
 */
export function loginThrottleKeys(
  prefix: string,
  email: string,
  address: string | null,
  ipv6PrefixBits = DEFAULT_IPV6_PREFIX_BITS,
): [account: string, address: string, global: string] {
  return [
    `${prefix}:{login}:account:${sha256Hex(email.toLowerCase()).slice(0, 32)}`,
    `${prefix}:{login}:address:${address === null ? 'unknown' : addressBucket(address, ipv6PrefixBits)}`,
    `${prefix}:{login}:global`,
  ];
}

/**
 * One shard of the near-duplicate verdicts (`<prefix>:near-dup:{xx}`, `xx` the url_fp's first
 * byte: its own cluster slot), as a CappedHash's two generations.
 */
export function nearDupRecordKeys(prefix: string, shard: string): CappedHashKeys {
  return cappedHashKeys(`${prefix}:near-dup:{${shard}}`);
}

/**
 * The near-duplicate bucket of a SimHash's 16-bit band `band` (0–3): a list in a slot of its own,
 * `<prefix>:simband:{<band>:<4 hex digits>}`.
 */
export function simhashBucketKey(prefix: string, band: number, simhash: string): string {
  return `${prefix}:simband:{${band}:${simhash.slice(band * 4, band * 4 + 4)}}`;
}

/**
 * The keys of shard moves (`<prefix>:{shard-moves}:…`): a hash tag of their own, whose slot no
 * frontier shard's tag (`{0}` … `{4095}`) hashes to, so they never move with a shard they record.
 * `lock(slot)` is held by the coordinator moving that slot; `records` maps shard → its latest
 * move (JSON).
 */
export function shardMoveKeys(prefix: string): { lock: (slot: number) => string; records: string } {
  return {
    lock: (slot) => `${prefix}:{shard-moves}:lock:${slot}`,
    records: `${prefix}:{shard-moves}:records`,
  };
}
