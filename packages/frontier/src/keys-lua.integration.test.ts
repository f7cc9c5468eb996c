import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { FrontierKeys } from './keys';
import { loadFrontierScript } from './scripts';

/**
 * includes/keys.lua, the keys scripts build, against FrontierKeys, the key module: every Lua
 * function run through a real Redis (EVAL, no key touched) gives its method's key for the same
 * inputs, hash tag included. And no script builds a key any other way.
 */
const KEYS_LUA = loadFrontierScript('includes/keys.lua');
const keys = new FrontierKeys(uniquePrefix('keys-lua'));

type Case = readonly [call: string, want: string];

/** Each keys.lua function: a Lua call (ARGV[1] the shard prefix) and its FrontierKeys twin. */
function cases(shard: number, host: string, leaseId: string, ip: string): Record<string, Case[]> {
  const ready = keys.ready(shard);
  const seen = keys.seen(shard);
  const q = (s: string) => `'${s}'`;
  return {
    host_key: [[`host_key(ARGV[1], ${q(host)})`, keys.host(shard, host)]],
    queue_key: ['0', '9', 'r'].map((t) => [
      `queue_key(ARGV[1], ${q(t)}, ${q(host)})`,
      keys.tierQueue(shard, t, host),
    ]),
    leased_batch_key: [[`leased_batch_key(ARGV[1], ${q(host)})`, keys.leasedBatch(shard, host)]],
    lease_key: [[`lease_key(ARGV[1], ${q(leaseId)})`, keys.lease(shard, leaseId)]],
    ip_state_key: [[`ip_state_key(ARGV[1], ${q(ip)})`, keys.ipState(shard, ip)]],
    recrawl_pending_key: [['recrawl_pending_key(ARGV[1])', keys.recrawlPending(shard)]],
    suffix_policies_key: [['suffix_policies_key(ARGV[1])', keys.suffixPolicies(shard)]],
    overflow_key: [['overflow_key(ARGV[1])', keys.overflow(shard)]],
    refill_hosts_key: [['refill_hosts_key(ARGV[1])', keys.refillHosts(shard)]],
    refill_done_key: [['refill_done_key(ARGV[1])', keys.refillDone(shard)]],
    spill_epoch_key: [['spill_epoch_key(ARGV[1])', keys.spillEpoch(shard)]],
    // A class is a number in the scripts (host_class), as the ready key is the declared one.
    ready_class_key: [0, 5, 9].map((c) => [
      `ready_class_key(${q(ready)}, ${c})`,
      keys.readyClass(shard, c),
    ]),
    seen_layer_key: [1, 2, 12].map((i) => [
      `seen_layer_key(${q(seen)}, ${i})`,
      keys.seenLayer(shard, i),
    ]),
    seen_meta_key: [[`seen_meta_key(${q(seen)})`, keys.seenMeta(shard)]],
    seen_candidates_key: [[`seen_candidates_key(${q(seen)})`, keys.seenCandidates(shard)]],
    seen_confirmed_key: [[`seen_confirmed_key(${q(seen)})`, keys.seenConfirmed(shard)]],
  };
}

/** The shard's hash tag: the part of a key Redis Cluster hashes to a slot. */
const tagOf = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];

let redis: RedisClient;

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(() => redis.disconnect());

describe('includes/keys.lua', () => {
  it('builds every key as FrontierKeys does, in the shard slot', async () => {
    const samples = [
      [0, 'example.com', '0-1700000000000-1', '192.0.2.1'],
      [4095, 'xn--bcher-kva.example', '4095-1700000000123-98765', '2001:db8::7'],
    ] as const;
    for (const [shard, host, leaseId, ip] of samples) {
      const all = Object.values(cases(shard, host, leaseId, ip)).flat();
      const lua = `${KEYS_LUA}\nreturn { ${all.map(([call]) => call).join(', ')} }`;
      const got = await redis.eval(lua, 0, keys.shard(shard));
      expect(got).toEqual(all.map(([, want]) => want));
      for (const [, want] of all) expect(tagOf(want)).toBe(String(shard));
    }
  });

  it('has a case above for each of its functions', () => {
    const declared = [...KEYS_LUA.matchAll(/^local function (\w+)\(/gm)].map((m) => m[1]);
    expect(declared.sort()).toEqual(Object.keys(cases(0, 'h', 'l', 'i')).sort());
  });

  it('is the only place a script builds a key', () => {
    const dir = new URL('./commands/', import.meta.url);
    const files = [
      ...readdirSync(dir).filter((f) => f.endsWith('.lua')),
      ...readdirSync(new URL('includes/', dir))
        .filter((f) => f.endsWith('.lua') && f !== 'keys.lua')
        .map((f) => `includes/${f}`),
    ];
    // A key built by hand: a string joined to the shard prefix or to a declared key.
    const handBuilt = /\b(prefix|\w*_key|KEYS\[\d+\]|s\.key|key) \.\. ['"]/;
    for (const file of files) {
      // The file itself: its includes are checked as files of their own.
      const code = readFileSync(new URL(file, dir), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*--/.test(line));
      expect(
        code.filter((line) => handBuilt.test(line)),
        file,
      ).toEqual([]);
    }
  });
});
