import type { Frontier } from '@crawler/frontier';
import { cappedHashKeys, type CappedHashKeys } from '@crawler/adapters/redis';

/**
 * The one place that names the Redis keys crawl-core builds itself (the frontier's are
 * packages/frontier/src/keys.ts, the streams' and settings' packages/domain/src/messages). Keys
 * kept per host live in the host's frontier shard (its `{shard}` hash tag), beside its queue.
 */

/** What a per-host key needs of the frontier: its key builder and host → shard map. */
export type ShardLayout = Pick<Frontier, 'keys' | 'shardOf'>;

/** The agents' heartbeat set: a message key, built with the others in @crawler/domain/messages. */
export { agentsKey } from '@crawler/domain/messages';

/**
 * An origin's cached robots.txt (`<shard prefix>robots:<origin>`, the origin with scheme and
 * port), in the shard of `host`, the origin's host: written by the agents' RobotsCache, read by
 * the coordinator's host view.
 */
export function robotsKey(layout: ShardLayout, host: string, origin: string): string {
  return `${layout.keys.shard(layout.shardOf(host))}robots:${origin}`;
}

/**
 * A host's sitemap state in its shard: `sm` the sitemaps fetched (SitemapState), `sl` the
 * standing of the URLs they listed.
 */
export function sitemapKey(layout: ShardLayout, kind: 'sm' | 'sl', host: string): string {
  return `${layout.keys.shard(layout.shardOf(host))}${kind}:${host}`;
}

/**
 * One shard of the exact-duplicate content index (`<prefix>:content:{xx}`, `xx` the body
 * digest's first byte in hex: its own cluster slot), as a CappedHash's two generations.
 */
export function contentIndexKeys(prefix: string, shard: string): CappedHashKeys {
  return cappedHashKeys(`${prefix}:content:{${shard}}`);
}
