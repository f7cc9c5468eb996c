import { z } from 'zod';
import { encodeEntry } from './queue-entry';
import { inLinkSiteId, tierOf } from './priority';
import { sumCounts, type FrontierResources } from './resources';
import { waitOutShardMove } from './script-replies';
import { FrontierSeenSet } from './seen-set';
import type { EnqueueUrl } from './types';

/** URLs (or url_fps) per script call at most. */
const SCRIPT_CHUNK = 1000;

/** One host's part of an enqueue: its URLs' quadruples, best seed priority, referring sites. */
interface HostGroup {
  args: string[];
  seed: number | null;
  sites: Set<string>;
}

/**
 * Appends a host's part of an enqueueUrls call: the quadruples with an empty url_fp that tell
 * the script about the host (best seed priority, referring sites), then its URLs'.
 */
function appendHostArgs(out: string[], host: string, g: HostGroup): void {
  if (g.seed !== null) out.push('', host, 'S', String(g.seed));
  for (const site of g.sites) out.push('', host, 'I', site);
  for (const a of g.args) out.push(a);
}

const seenReply = z.array(z.number());

/** url_fps of `entries` by shard, `chunk` at most per group (a script call each). */
function chunksByShard(
  r: FrontierResources,
  entries: ReadonlyArray<{ host: string }>,
  chunk: number,
): Array<[shard: number, indexes: number[]]> {
  const byShard = new Map<number, number[]>();
  entries.forEach((e, i) => {
    const s = r.shardOf(e.host);
    const list = byShard.get(s);
    if (list) list.push(i);
    else byShard.set(s, [i]);
  });
  const out: Array<[number, number[]]> = [];
  for (const [s, idx] of byShard)
    for (let i = 0; i < idx.length; i += chunk) out.push([s, idx.slice(i, i + chunk)]);
  return out;
}

/**
 * The frontier's way in: URLs into their hosts' queues through the seen set
 * (enqueueUrls-4.lua), and the seen set itself (seenBatch-2.lua, markSeen-2.lua;
 * includes/seen-set.lua: scalable Bloom filters, seen-layers.ts).
 */
export class FrontierEnqueue {
  /** The seen set's layers and its maybe-seen candidates (for the coordinator's confirmation). */
  readonly seenSet: FrontierSeenSet;

  constructor(private readonly r: FrontierResources) {
    this.seenSet = new FrontierSeenSet(r);
  }

  /**
   * Adds URLs not seen before (or re-crawls not already waiting). Returns how many were new.
   * Seeds (`source: 'seed'`, or every URL of a call with `opts.seeds`: a seed submitted as a
   * sitemap goes in as `sitemap-file`) set their host's priority class from their priority, and
   * links from another site (`fromHost`) count toward it, even when the URL itself was seen
   * before. Nothing else moves a host's class: sitemap entries (`sitemap`, `sitemap-file`)
   * never do, whatever their priority. Throws FrontierInputError, writing nothing, when a
   * priority is not an integer 0–9.
   */
  async enqueue(
    urls: readonly EnqueueUrl[],
    opts: { seeds?: boolean } = {},
  ): Promise<{ accepted: number }> {
    // Shard → host → its URLs' quadruples: the script does its per-host work once per group.
    const byShard = new Map<number, Map<string, HostGroup>>();
    for (const u of urls) {
      const shard = this.r.shardOf(u.host);
      let hosts = byShard.get(shard);
      if (!hosts) byShard.set(shard, (hosts = new Map<string, HostGroup>()));
      let g = hosts.get(u.host);
      if (!g) hosts.set(u.host, (g = { args: [], seed: null, sites: new Set() }));
      const tier = tierOf(u);
      g.args.push(u.urlFp, u.host, tier, encodeEntry(u));
      if (u.source === 'seed' || (opts.seeds === true && u.source !== 'recrawl'))
        g.seed = Math.min(g.seed ?? Infinity, Number(tier));
      else if ((u.source ?? 'link') === 'link' && u.fromHost) {
        const site = inLinkSiteId(u.fromHost, u.host);
        if (site) g.sites.add(site);
      }
    }
    const { keys: k, seen } = this.r;
    // At most SCRIPT_CHUNK URLs per script call: a call's arguments are spread several times on
    // the way to Redis (here, ioredis, its auto-pipeline), and some 10k URLs overflow the stack.
    const calls: Promise<unknown>[] = [];
    for (const [s, hosts] of byShard) {
      const args: string[] = [];
      for (const [host, g] of hosts) appendHostArgs(args, host, g);
      for (let i = 0; i < args.length; i += 4 * SCRIPT_CHUNK) {
        calls.push(
          waitOutShardMove(() =>
            this.r.cmd.enqueueUrls(
              k.ready(s),
              k.seen(s),
              k.stats(s),
              k.dead(s),
              k.shard(s),
              seen.mode,
              seen.spec,
              seen.confirmMax,
              this.r.head.max,
              this.r.head.low,
              ...args.slice(i, i + 4 * SCRIPT_CHUNK),
            ),
          ),
        );
      }
    }
    return { accepted: sumCounts(await Promise.all(calls)) };
  }

  /** SeenBatch: whether each url_fp is in its shard's seen set (Bloom: probably, any layer). */
  async seenBatch(entries: ReadonlyArray<{ urlFp: string; host: string }>): Promise<boolean[]> {
    const { seen, keys } = this.r;
    const out = new Array<boolean>(entries.length).fill(false);
    await Promise.all(
      chunksByShard(this.r, entries, SCRIPT_CHUNK).map(async ([s, idx]) => {
        const reply = seenReply.parse(
          await waitOutShardMove(() =>
            this.r.cmd.seenBatch(
              keys.seen(s),
              keys.stats(s),
              seen.mode,
              seen.spec,
              ...idx.map((i) => entries[i]!.urlFp),
            ),
          ),
        );
        idx.forEach((i, j) => (out[i] = reply[j] === 1));
      }),
    );
    return out;
  }

  /**
   * Puts URLs into their shards' seen sets without queueing them (markSeen-2.lua): what a
   * frontier rebuild does for every URL already fetched, so a link to one is not fetched again as
   * new. Returns how many were not seen before.
   */
  async markSeen(entries: ReadonlyArray<{ urlFp: string; host: string }>): Promise<number> {
    const { seen, keys } = this.r;
    const calls = chunksByShard(this.r, entries, SCRIPT_CHUNK).map(([s, idx]) =>
      waitOutShardMove(() =>
        this.r.cmd.markSeen(
          keys.seen(s),
          keys.stats(s),
          seen.mode,
          seen.spec,
          ...idx.map((i) => entries[i]!.urlFp),
        ),
      ),
    );
    return sumCounts(await Promise.all(calls));
  }
}
