import { z } from 'zod';
import { decodeEntry } from './queue-entry';
import { allShards, type FrontierResources } from './resources';
import { waitOutShardMove } from './script-replies';
import { seenFalsePositiveRate, seenLayersOf, type SeenLayer } from './seen-layers';
import type { EnqueueUrl } from './types';

/**
 * A discovered URL the seen set said maybe-seen for, noted by the enqueue script
 * (`<seen>:maybe`, `tier|host|entry`) for the coordinator to confirm against the URL table.
 */
export interface SeenCandidate {
  shard: number;
  urlFp: string;
  host: string;
  /** The URL as it would have been enqueued (priority from its tier). */
  url: EnqueueUrl;
}

/**
 * What the frontier knows of a candidate (checkSeenCandidates-2.lua): `absent` — nowhere in
 * Redis (with `mark`: now taken as new by its next enqueue); `present` — queued, leased, waiting
 * for a re-crawl or already confirmed; `unknown` — its host is parked, has spilled URLs, or queues
 * more than the scan bound, so nothing can be said (the candidate stays seen).
 */
export type CandidateVerdict = 'absent' | 'present' | 'unknown';

const VERDICTS: readonly CandidateVerdict[] = ['absent', 'present', 'unknown'];
const verdictReply = z.array(z.number().int().min(0).max(2));

/** The candidates' counters of all shards: waiting in the lists, noted in all, dropped at the cap. */
export interface SeenCandidateCounts {
  waiting: number;
  noted: number;
  dropped: number;
}

/** A shard's Bloom layers (seen-layers.ts), as its `<seen>:meta` hash describes them. */
export async function readSeenLayers(
  r: FrontierResources,
  shard: number,
  unrecordedUrls = 0,
): Promise<SeenLayer[]> {
  const meta = await r.redis.hgetall(r.keys.seenMeta(shard));
  const { bloomBits: bits, bloomHashes: hashes, layer0Capacity: capacity } = r.seen;
  return seenLayersOf(meta, { bits, hashes, capacity, urls: unrecordedUrls });
}

/** A candidate from its list entry `tier|host|entry`, or null when it does not parse. */
function parseCandidate(shard: number, raw: string): SeenCandidate | null {
  const m = /^([0-9])\|([^|]+)\|(.+)$/s.exec(raw);
  if (!m) return null;
  try {
    const e = decodeEntry(m[3]!);
    const url: EnqueueUrl = {
      url: e.url,
      urlFp: e.urlFp,
      host: m[2]!,
      depth: e.depth,
      priority: Number(m[1]),
      redirects: e.redirects,
      hops: e.hops,
      source: e.source,
    };
    return { shard, urlFp: e.urlFp, host: m[2]!, url };
  } catch {
    return null;
  }
}

/**
 * The seen set beyond enqueue: its layers (for the stats and the bench) and the maybe-seen
 * candidates the coordinator confirms (apps/coordinator/src/seen-confirm): taken from a shard's
 * list, checked against the frontier before and after the URL table is asked, and marked new.
 */
export class FrontierSeenSet {
  constructor(private readonly r: FrontierResources) {}

  /** The false-positive rate the seen set stays under (FRONTIER_SEEN_FP_TARGET). */
  get fpTarget(): number {
    return this.r.seen.fpTarget;
  }

  /** A shard's layers. */
  layers(shard: number): Promise<SeenLayer[]> {
    return readSeenLayers(this.r, shard);
  }

  /** The expected false-positive rate of a lookup, averaged over the shards (0 in exact mode). */
  async falsePositiveRate(): Promise<number> {
    if (this.r.seen.mode !== 'bloom') return 0;
    const rates = await Promise.all(
      allShards(this.r).map(async (s) => seenFalsePositiveRate(await this.layers(s))),
    );
    return rates.reduce((a, b) => a + b, 0) / this.r.shards;
  }

  /** Candidates waiting, noted and dropped, over all shards. */
  async candidateCounts(): Promise<SeenCandidateCounts> {
    const { redis, keys } = this.r;
    const per = await Promise.all(
      allShards(this.r).map(async (s) => {
        const [waiting, counters] = await Promise.all([
          redis.llen(keys.seenCandidates(s)),
          redis.hmget(keys.seenMeta(s), 'noted', 'dropped'),
        ]);
        return { waiting, noted: Number(counters[0] ?? 0), dropped: Number(counters[1] ?? 0) };
      }),
    );
    return per.reduce(
      (a, b) => ({
        waiting: a.waiting + b.waiting,
        noted: a.noted + b.noted,
        dropped: a.dropped + b.dropped,
      }),
      { waiting: 0, noted: 0, dropped: 0 },
    );
  }

  /**
   * Takes up to `max` candidates off a shard's list (oldest first; each is taken once, by one
   * caller). Entries that do not parse are dropped; `malformed` counts them.
   */
  async takeCandidates(
    shard: number,
    max: number,
  ): Promise<{ candidates: SeenCandidate[]; malformed: number }> {
    const raw = (await this.r.redis.lpop(this.r.keys.seenCandidates(shard), max)) ?? [];
    const candidates: SeenCandidate[] = [];
    for (const line of raw) {
      const c = parseCandidate(shard, line);
      if (c) candidates.push(c);
    }
    return { candidates, malformed: raw.length - candidates.length };
  }

  /**
   * Whether each candidate of one shard is anywhere in the frontier (checkSeenCandidates-2.lua);
   * with `mark`, the absent ones are marked new in the same step. `scanMax`: entries of one
   * host's lists read at most.
   */
  async checkCandidates(
    shard: number,
    candidates: ReadonlyArray<Pick<SeenCandidate, 'urlFp' | 'host'>>,
    opts: { mark: boolean; scanMax: number },
  ): Promise<CandidateVerdict[]> {
    if (candidates.length === 0) return [];
    const { keys } = this.r;
    const reply = await waitOutShardMove(() =>
      this.r.cmd.checkSeenCandidates(
        keys.seen(shard),
        keys.stats(shard),
        keys.shard(shard),
        opts.mark ? '1' : '0',
        opts.scanMax,
        ...candidates.flatMap((c) => [c.urlFp, c.host]),
      ),
    );
    return verdictReply.parse(reply).map((v) => VERDICTS[v]!);
  }
}
