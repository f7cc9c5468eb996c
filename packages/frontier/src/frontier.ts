import type { RedisClient } from '@crawler/adapters/redis';
import { FrontierAdmin } from './admin';
import { FrontierDeadLetters } from './dead-letters';
import { FrontierEnqueue } from './enqueue';
import type { FrontierKeys } from './keys';
import { FrontierLeases } from './leases';
import { FrontierPolicies } from './policies';
import { FrontierDataError } from './queue-entry';
import { FrontierInputError } from './priority';
import { FrontierRecrawl } from './recrawl-schedule';
import { frontierResources, type FrontierOptions } from './resources';
import { FrontierSpill } from './spill';

export type { FrontierOptions } from './resources';

/**
 * Client of the Redis frontier: per-host queues (priority tiers 0–9 and a re-crawl queue) in
 * logical shards, hosts leased highest priority class first among those due, host-batch leases
 * fenced by lease id, one Lua script per state transition (packages/frontier/src/commands).
 * Every method is safe to call from many agents at once.
 *
 * A facade over the frontier's parts, which share one FrontierResources (client, scripts, keys,
 * shard map, configuration): `urls` (enqueue, seen set), `leases` (lease, complete, fail, extend,
 * renew, progress, IP locks), `policies`, `deadLetterLists`, `admin` (layout, shard moves,
 * stats), `recrawl` (the re-crawl schedule's scripts) and `spill` (the bounded heads' overflow). Its methods are theirs, under the same
 * names; callers may use either.
 */
export class Frontier {
  readonly keys: FrontierKeys;
  readonly shards: number;
  /** Bloom bits per shard and hash count. */
  readonly bloomBits: number;
  readonly bloomHashes: number;
  /** Enqueue and the seen set. */
  readonly urls: FrontierEnqueue;
  /** Host leases and the IP locks that go with them. */
  readonly leases: FrontierLeases;
  /** Host and suffix policies, host priority classes, crawl-wide defaults. */
  readonly policies: FrontierPolicies;
  /** The dead letters of every shard. */
  readonly deadLetterLists: FrontierDeadLetters;
  /** Layout check, shard moves, counters. */
  readonly admin: FrontierAdmin;
  /** The re-crawl schedule's scripts (its rules are the coordinator's). */
  readonly recrawl: FrontierRecrawl;
  /** The bounded heads' overflow and refills (for the coordinator's spill pump). */
  readonly spill: FrontierSpill;
  private readonly hostShard: (host: string) => number;

  constructor(redis: RedisClient, opts: FrontierOptions) {
    const r = frontierResources(redis, opts);
    this.keys = r.keys;
    this.shards = r.shards;
    this.bloomBits = r.seen.bloomBits;
    this.bloomHashes = r.seen.bloomHashes;
    this.hostShard = r.shardOf;
    this.urls = new FrontierEnqueue(r);
    this.leases = new FrontierLeases(r);
    this.policies = new FrontierPolicies(r);
    this.deadLetterLists = new FrontierDeadLetters(r);
    this.admin = new FrontierAdmin(r);
    this.recrawl = new FrontierRecrawl(r);
    this.spill = new FrontierSpill(r);
  }

  /** The shard of a host (FNV-1a, stable across processes and releases). */
  shardOf(host: string): number {
    return this.hostShard(host);
  }

  // Enqueue and the seen set.

  /** {@inheritDoc FrontierEnqueue.enqueue} */
  enqueue(...a: Parameters<FrontierEnqueue['enqueue']>) {
    return this.urls.enqueue(...a);
  }
  /** {@inheritDoc FrontierEnqueue.seenBatch} */
  seenBatch(...a: Parameters<FrontierEnqueue['seenBatch']>) {
    return this.urls.seenBatch(...a);
  }
  /** {@inheritDoc FrontierEnqueue.markSeen} */
  markSeen(...a: Parameters<FrontierEnqueue['markSeen']>) {
    return this.urls.markSeen(...a);
  }

  // Leases.

  /** {@inheritDoc FrontierLeases.lease} */
  lease(...a: Parameters<FrontierLeases['lease']>) {
    return this.leases.lease(...a);
  }
  /** {@inheritDoc FrontierLeases.complete} */
  complete(...a: Parameters<FrontierLeases['complete']>) {
    return this.leases.complete(...a);
  }
  /** {@inheritDoc FrontierLeases.fail} */
  fail(...a: Parameters<FrontierLeases['fail']>) {
    return this.leases.fail(...a);
  }
  /** {@inheritDoc FrontierLeases.extend} */
  extend(...a: Parameters<FrontierLeases['extend']>) {
    return this.leases.extend(...a);
  }
  /** {@inheritDoc FrontierLeases.renew} */
  renew(...a: Parameters<FrontierLeases['renew']>) {
    return this.leases.renew(...a);
  }
  /** {@inheritDoc FrontierLeases.recordProgress} */
  recordProgress(...a: Parameters<FrontierLeases['recordProgress']>) {
    return this.leases.recordProgress(...a);
  }
  /** {@inheritDoc FrontierLeases.openLeases} */
  openLeases(...a: Parameters<FrontierLeases['openLeases']>) {
    return this.leases.openLeases(...a);
  }
  /** {@inheritDoc FrontierLeases.releaseLeasesOf} */
  releaseLeasesOf(...a: Parameters<FrontierLeases['releaseLeasesOf']>) {
    return this.leases.releaseLeasesOf(...a);
  }
  /** {@inheritDoc FrontierLeases.reclaimExpired} */
  reclaimExpired() {
    return this.leases.reclaimExpired();
  }

  // Policies.

  /** {@inheritDoc FrontierPolicies.setHostPolicy} */
  setHostPolicy(...a: Parameters<FrontierPolicies['setHostPolicy']>) {
    return this.policies.setHostPolicy(...a);
  }
  /** {@inheritDoc FrontierPolicies.demoteHost} */
  demoteHost(...a: Parameters<FrontierPolicies['demoteHost']>) {
    return this.policies.demoteHost(...a);
  }
  /** {@inheritDoc FrontierPolicies.hostPriority} */
  hostPriority(...a: Parameters<FrontierPolicies['hostPriority']>) {
    return this.policies.hostPriority(...a);
  }
  /** {@inheritDoc FrontierPolicies.hostPolicy} */
  hostPolicy(...a: Parameters<FrontierPolicies['hostPolicy']>) {
    return this.policies.hostPolicy(...a);
  }
  /** {@inheritDoc FrontierPolicies.setDefaults} */
  setDefaults(...a: Parameters<FrontierPolicies['setDefaults']>): void {
    this.policies.setDefaults(...a);
  }
  /** {@inheritDoc FrontierPolicies.defaults} */
  get defaults() {
    return this.policies.defaults;
  }
  /** {@inheritDoc FrontierPolicies.setSuffixPolicy} */
  setSuffixPolicy(...a: Parameters<FrontierPolicies['setSuffixPolicy']>) {
    return this.policies.setSuffixPolicy(...a);
  }
  /** {@inheritDoc FrontierPolicies.knownHostsUnder} */
  knownHostsUnder(...a: Parameters<FrontierPolicies['knownHostsUnder']>) {
    return this.policies.knownHostsUnder(...a);
  }

  // Dead letters.

  /** {@inheritDoc FrontierDeadLetters.deadLetters} */
  deadLetters(...a: Parameters<FrontierDeadLetters['deadLetters']>) {
    return this.deadLetterLists.deadLetters(...a);
  }
  /** {@inheritDoc FrontierDeadLetters.deadLetterPage} */
  deadLetterPage(...a: Parameters<FrontierDeadLetters['deadLetterPage']>) {
    return this.deadLetterLists.deadLetterPage(...a);
  }
  /** {@inheritDoc FrontierDeadLetters.deadLettersOfHost} */
  deadLettersOfHost(...a: Parameters<FrontierDeadLetters['deadLettersOfHost']>) {
    return this.deadLetterLists.deadLettersOfHost(...a);
  }
  /** {@inheritDoc FrontierDeadLetters.deadLettersDroppedByReason} */
  deadLettersDroppedByReason() {
    return this.deadLetterLists.deadLettersDroppedByReason();
  }

  /** {@inheritDoc FrontierDeadLetters.deadLettersByReason} */
  deadLettersByReason() {
    return this.deadLetterLists.deadLettersByReason();
  }
  /** {@inheritDoc FrontierDeadLetters.requeueDeadLetters} */
  requeueDeadLetters(...a: Parameters<FrontierDeadLetters['requeueDeadLetters']>) {
    return this.deadLetterLists.requeueDeadLetters(...a);
  }

  // Administration.

  /** {@inheritDoc FrontierAdmin.checkLayout} */
  checkLayout() {
    return this.admin.checkLayout();
  }
  /** {@inheritDoc FrontierAdmin.freezeShard} */
  freezeShard(shard: number) {
    return this.admin.freezeShard(shard);
  }
  /** {@inheritDoc FrontierAdmin.thawShard} */
  thawShard(shard: number) {
    return this.admin.thawShard(shard);
  }
  /** {@inheritDoc FrontierAdmin.stats} */
  stats() {
    return this.admin.stats();
  }
  /** {@inheritDoc FrontierAdmin.isIdle} */
  isIdle() {
    return this.admin.isIdle();
  }
  /** {@inheritDoc FrontierAdmin.budgetSpent} */
  budgetSpent() {
    return this.admin.budgetSpent();
  }
  /** {@inheritDoc FrontierAdmin.readyHosts} */
  readyHosts(...a: Parameters<FrontierAdmin['readyHosts']>) {
    return this.admin.readyHosts(...a);
  }
  /** {@inheritDoc FrontierAdmin.readyCount} */
  readyCount(...a: Parameters<FrontierAdmin['readyCount']>) {
    return this.admin.readyCount(...a);
  }
  /** {@inheritDoc FrontierAdmin.hostState} */
  hostState(host: string) {
    return this.admin.hostState(host);
  }
}

export { FrontierDataError, FrontierInputError };
