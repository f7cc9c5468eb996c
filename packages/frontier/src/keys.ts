import { policyChannelKey } from '@crawler/domain/messages';
import { HOST_CLASSES } from './priority';

/**
 * The one place that names frontier keys. Every key of a logical shard carries the hash tag
 * `{<shard>}`, so each Lua script touches a single Redis Cluster slot.
 */
export class FrontierKeys {
  constructor(readonly prefix: string) {}

  /**
   * Prefix of a shard's keys. Scripts take it as ARGV[1] and build the keys they do not declare
   * from it with the functions of `commands/includes/keys.lua`, each the Lua twin of a method
   * here (keys-lua.integration.test.ts checks them against each other).
   */
  shard(shard: number): string {
    return `${this.prefix}:{${shard}}:`;
  }
  /**
   * Base name of the shard's ready store, which is its class sets (`readyClass`). Scripts declare
   * it (it names the shard's slot) and build the class sets from it. The key itself is legacy:
   * releases before the class sets became the only ready store also kept every ready host here;
   * nothing writes it now, and the lease and stats scripts move what is left into the class sets.
   */
  ready(shard: number): string {
    return `${this.shard(shard)}ready`;
  }
  /**
   * The ready hosts (work queued, no lease, not blocked or parked) of one host priority class
   * (0 highest … 9) → their next allowed time (ms): the lease script drains due hosts from the
   * highest class first (keys.lua: ready_class_key).
   */
  readyClass(shard: number, hostClass: number): string {
    return `${this.ready(shard)}:${hostClass}`;
  }
  /** The shard's ready class sets, class 0 first: together they hold every ready host once. */
  readyClasses(shard: number): string[] {
    return Array.from({ length: HOST_CLASSES }, (_, c) => this.readyClass(shard, c));
  }
  leases(shard: number): string {
    return `${this.shard(shard)}leases`;
  }
  /**
   * The shard's seen set: an exact set, or layer 0 of its scalable Bloom filter (the single
   * filter of earlier releases). The other seen-set keys below are built from it in Lua
   * (includes/seen-set.lua), so they share its `{shard}` tag.
   */
  seen(shard: number): string {
    return `${this.shard(shard)}seen`;
  }
  /**
   * Layer i ≥ 1 of the shard's Bloom filter (`<seen>:<i>`), a bit string (keys.lua:
   * seen_layer_key).
   */
  seenLayer(shard: number, layer: number): string {
    return layer === 0 ? this.seen(shard) : `${this.seen(shard)}:${layer}`;
  }
  /**
   * The layers' geometry and counts, and the candidate counters (`<seen>:meta`, hash; keys.lua:
   * seen_meta_key).
   */
  seenMeta(shard: number): string {
    return `${this.seen(shard)}:meta`;
  }
  /**
   * Maybe-seen discoveries waiting for confirmation: `tier|host|entry` (`<seen>:maybe`, list;
   * keys.lua: seen_candidates_key).
   */
  seenCandidates(shard: number): string {
    return `${this.seen(shard)}:maybe`;
  }
  /**
   * url_fps confirmed new, taken by their next enqueue (`<seen>:new`, set; keys.lua:
   * seen_confirmed_key).
   */
  seenConfirmed(shard: number): string {
    return `${this.seen(shard)}:new`;
  }
  stats(shard: number): string {
    return `${this.shard(shard)}stats`;
  }
  dead(shard: number): string {
    return `${this.shard(shard)}dead`;
  }
  /**
   * The frontier's generation marker (JSON: when this Redis dataset was initialised or rebuilt,
   * and from what), written by the coordinator only. Missing while Postgres has seeds: Redis was
   * lost, and the coordinator rebuilds the frontier (apps/coordinator/src/frontier-rebuild).
   */
  generation(): string {
    return `${this.prefix}:generation`;
  }
  /**
   * The installation's layout (`shards=…;seen=…;m=…;k=…`), written on first use: a frontier
   * client configured otherwise refuses to run (Frontier.checkLayout).
   */
  layout(): string {
    return `${this.prefix}:layout`;
  }
  /**
   * Says a coordinator's spill pump runs (value: its id; expires unless renewed). Ownership
   * itself is kept in Postgres (spill-store.ts: frontier_spill_owner); agents read this key.
   */
  spillLock(): string {
    return `${this.prefix}:spill-lock`;
  }
  /**
   * The id of this Redis dataset's spill (Postgres holds the same, spill-store.ts): written
   * when the frontier is first initialised, or at the start of a rebuild after Redis was lost.
   * A spill pump runs only while the two agree.
   */
  spillDataset(): string {
    return `${this.prefix}:spill-dataset`;
  }
  /** Pub/sub channel where policy changes are announced to agents (JSON HostPolicyNotice). */
  policyChannel(): string {
    return policyChannelKey(this.prefix);
  }
  /** Re-crawl schedule of the shard's URLs: url_fp → when it is due (ms). */
  recrawlDue(shard: number): string {
    return `${this.shard(shard)}rc:due`;
  }
  /** What each scheduled URL's last capture left (url, interval, validators, record). */
  recrawlMeta(shard: number): string {
    return `${this.shard(shard)}rc:meta`;
  }
  /**
   * Domain-suffix policies copied into the shard: suffix → packed policy (see suffix-policy.lua;
   * keys.lua: suffix_policies_key).
   */
  suffixPolicies(shard: number): string {
    return `${this.shard(shard)}sp`;
  }
  /** A host's hash: policy, politeness, lease, counters (keys.lua: host_key). */
  host(shard: number, host: string): string {
    return `${this.shard(shard)}h:${host}`;
  }
  /**
   * The batch of a host's open lease, entries tagged with their tier (`tier|entry`), taken off
   * when the lease ends (keys.lua: leased_batch_key).
   */
  leasedBatch(shard: number, host: string): string {
    return `${this.shard(shard)}lq:${host}`;
  }
  /**
   * A lease's record: host, agent, gap, and the `d<i>` marks of URLs done (keys.lua: lease_key).
   */
  lease(shard: number, leaseId: string): string {
    return `${this.shard(shard)}l:${leaseId}`;
  }
  /**
   * The shard's state of an IP: the lease fetching from it, its deadline and the IP's next
   * allowed time, for the hosts of the shard on that IP (keys.lua: ip_state_key). Across shards
   * an IP is held by its `ipLock`.
   */
  ipState(shard: number, ip: string): string {
    return `${this.shard(shard)}ip:${ip}`;
  }
  /**
   * url_fps of the shard's re-crawls queued, leased or dead-lettered, so one is in the frontier
   * once at a time (keys.lua: recrawl_pending_key).
   */
  recrawlPending(shard: number): string {
    return `${this.shard(shard)}rq`;
  }
  /** SCAN pattern of the host hashes (`host`) of every shard whose host matches `hostGlob`. */
  hostPattern(hostGlob: string): string {
    return `${this.prefix}:{*}:h:${hostGlob}`;
  }
  /** The host a host hash's key names (the inverse of `host`). */
  hostOfKey(key: string): string {
    const marker = '}:h:';
    return key.slice(key.indexOf(marker) + marker.length);
  }
  /**
   * An IP's lock across shards: the hosts of one IP hash to different shards, so the IP gets a
   * key (and a cluster slot) of its own, used only by single-key commands.
   */
  ipLock(ip: string): string {
    return `${this.prefix}:ip:{${ip}}`;
  }
  /**
   * What the crawl learned about a host's URLs (crawl-quality state: URL templates and their
   * novelty, no-op query parameters, the soft-404 probe's answer, duplicate counts), written by
   * the agent holding the host's lease.
   */
  hostQuality(shard: number, host: string): string {
    return `${this.shard(shard)}hq:${host}`;
  }
  /**
   * Query parameter names learned as no-ops on some host → how many hosts learned it (a sorted
   * set): other hosts queue URLs carrying them last until they learn for themselves.
   */
  noopParams(): string {
    return `${this.prefix}:quality:noop-params`;
  }
  /** Crawl-quality counters of the shard: rule → URLs dropped or marked by it. */
  qualityCounters(shard: number): string {
    return `${this.shard(shard)}qc`;
  }
  /**
   * A host's queue of one tier: '0'…'9' (URL priority, 0 highest) or 'r' (re-crawls), as
   * includes/host-queue.lua keeps them (keys.lua: queue_key).
   */
  tierQueue(shard: number, tier: string, host: string): string {
    return `${this.shard(shard)}q${tier}:${host}`;
  }
  /**
   * URLs spilled out of the shard's heads, not yet copied into Postgres: `seq|tier|host|entry`
   * (includes/spill.lua; keys.lua: overflow_key).
   */
  overflow(shard: number): string {
    return `${this.shard(shard)}ov`;
  }
  /** Hosts whose heads need URLs back from the spill (keys.lua: refill_hosts_key). */
  refillHosts(shard: number): string {
    return `${this.shard(shard)}rf`;
  }
  /**
   * Ids of refill batches applied whose Postgres rows may not be deleted yet (keys.lua:
   * refill_done_key).
   */
  refillDone(shard: number): string {
    return `${this.shard(shard)}rfdone`;
  }
  /**
   * The epoch of the spill pump that works the shard (its Postgres ownership, spill-store.ts):
   * the pump's scripts change nothing for an older epoch (keys.lua: spill_epoch_key).
   */
  spillEpoch(shard: number): string {
    return `${this.shard(shard)}spep`;
  }
  queue(shard: number, host: string): string {
    return `${this.shard(shard)}q:${host}`;
  }
}

/** FNV-1a, 32 bit, of a string's UTF-16 code units (unsigned). */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Stable host → shard map (FNV-1a, 32 bit): the same on every process and release. */
export function shardOf(host: string, shards: number): number {
  return fnv1a32(host) % shards;
}
