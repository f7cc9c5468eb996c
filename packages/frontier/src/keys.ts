/**
 * The one place that names frontier keys. Every key of a logical shard carries the hash tag
 * `{<shard>}`, so each Lua script touches a single Redis Cluster slot.
 */
export class FrontierKeys {
  constructor(readonly prefix: string) {}

  /** Prefix of a shard's keys; per-host keys (`h:`, `q:`, `lq:`, `l:`) are built from it in Lua. */
  shard(shard: number): string {
    return `${this.prefix}:{${shard}}:`;
  }
  ready(shard: number): string {
    return `${this.shard(shard)}ready`;
  }
  leases(shard: number): string {
    return `${this.shard(shard)}leases`;
  }
  seen(shard: number): string {
    return `${this.shard(shard)}seen`;
  }
  stats(shard: number): string {
    return `${this.shard(shard)}stats`;
  }
  dead(shard: number): string {
    return `${this.shard(shard)}dead`;
  }
  /** Pub/sub channel where policy changes are announced to agents (JSON HostPolicyNotice). */
  policyChannel(): string {
    return `${this.prefix}:policy`;
  }
  /** Re-crawl schedule of the shard's URLs: url_fp → when it is due (ms). */
  recrawlDue(shard: number): string {
    return `${this.shard(shard)}rc:due`;
  }
  /** What each scheduled URL's last capture left (url, interval, validators, record). */
  recrawlMeta(shard: number): string {
    return `${this.shard(shard)}rc:meta`;
  }
  /** Domain-suffix policies copied into the shard: suffix → packed policy (see suffix-policy.lua). */
  suffixPolicies(shard: number): string {
    return `${this.shard(shard)}sp`;
  }
  host(shard: number, host: string): string {
    return `${this.shard(shard)}h:${host}`;
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
  /** Crawl-quality counters of the shard: rule → URLs dropped or marked by it. */
  qualityCounters(shard: number): string {
    return `${this.shard(shard)}qc`;
  }
  queue(shard: number, host: string): string {
    return `${this.shard(shard)}q:${host}`;
  }
}

/** Stable host → shard map (FNV-1a, 32 bit): the same on every process and release. */
export function shardOf(host: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < host.length; i++) {
    h ^= host.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
