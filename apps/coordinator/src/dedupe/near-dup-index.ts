import { EMPTY_SIMHASH, hammingDistance } from '@crawler/domain/dedupe';
import {
  CappedHash,
  defineRedisScript,
  loadLua,
  type RedisClient,
  type RedisScript,
} from '@crawler/adapters/redis';
import { nearDupRecordKeys, simhashBucketKey } from '../keys';

/** A page the index found close to another. */
export interface NearDuplicate {
  urlFp: string;
  url: string;
  /** The earlier page it is close to. */
  originFp: string;
  originUrl: string;
  distance: number;
}

/** A page as the index needs it. */
export interface SimhashedPage {
  url_fp: string;
  url: string;
  simhash: string;
}

const PUSH_COMMAND = 'near_dup_push';
const PUSH_LUA = loadLua(new URL('./pushSimhashBucket-1.lua', import.meta.url));
/** Shards of the verdict records: the url_fp's first byte. */
const RECORD_SHARDS = 256;

/** How big the index may grow (DEDUPE_NEAR_BUCKET_SIZE, DEDUPE_NEAR_MAX_RECORDS). */
export interface NearDupLimits {
  /** Pages kept per band bucket, the most recent (or recently matched) first. */
  bucketSize: number;
  /** Near-duplicate verdicts kept (page → its origin), the most recent. */
  maxRecords: number;
}

/** The defaults of {@link NearDupLimits} (config.ts's). */
export const DEFAULT_NEAR_DUP_LIMITS: NearDupLimits = { bucketSize: 16, maxRecords: 1_000_000 };

/**
 * The near-duplicate index: SimHash-64 split into four 16-bit bands. Two hashes at most 3 bits
 * apart agree on at least one band (pigeonhole), so the candidates of a page are the pages
 * sharing one of its four band values, and only those are compared bit by bit. Each bucket is a
 * Redis list of `simhash|url_fp|url` (its own `{…}` slot on a cluster). The first page of a
 * cluster is its origin; later ones are recorded as near duplicates of it.
 *
 * Bounded: a bucket keeps its `bucketSize` most recent pages (an origin that is matched again
 * moves to the head), so the 262,144 buckets hold at most 262,144 × `bucketSize` pages (~100
 * bytes each). With pages spread evenly, buckets fill after ~65,536 × `bucketSize` distinct
 * pages (~1M at 16); from then on a near copy is found while its origin is among the last ~1M
 * distinct pages or has been matched since — near copies of a page crawled long ago and never
 * matched are counted as new. The verdicts (`near-dup`: url_fp → JSON) are a {@link CappedHash}
 * of at most `maxRecords`, the most recent.
 */
export class NearDupIndex {
  private readonly push: RedisScript;
  private readonly records: CappedHash;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** Largest Hamming distance counted as near (DEDUPE_NEAR_DISTANCE, at most 3). */
    private readonly maxDistance: number,
    private readonly limits: NearDupLimits = DEFAULT_NEAR_DUP_LIMITS,
  ) {
    if (maxDistance > 3) throw new RangeError('four 16-bit bands find distances up to 3 only');
    this.push = defineRedisScript(redis, PUSH_COMMAND, 1, PUSH_LUA);
    this.records = new CappedHash(
      redis,
      (shard) => nearDupRecordKeys(prefix, shard),
      Math.max(1, Math.ceil(limits.maxRecords / (2 * RECORD_SHARDS))),
    );
  }

  /**
   * Checks pages against the index and records each near duplicate's origin (url_fp → JSON),
   * so the URL inspector and the API can say what a page is a near copy of.
   */
  async checkAndRecord(pages: readonly SimhashedPage[]): Promise<NearDuplicate[]> {
    const found = await this.check(pages);
    const byShard = new Map<string, Array<[string, string]>>();
    for (const d of found) {
      const shard = d.urlFp.slice(0, 2);
      const entries = byShard.get(shard) ?? [];
      entries.push([d.urlFp, JSON.stringify(d)]);
      byShard.set(shard, entries);
    }
    await Promise.all([...byShard].map(([shard, entries]) => this.records.put(shard, entries)));
    return found;
  }

  /** The recorded origin of a near duplicate, or null. */
  async originOf(urlFp: string): Promise<NearDuplicate | null> {
    const raw = await this.records.get(urlFp.slice(0, 2), urlFp, { touch: false });
    return raw === null ? null : (JSON.parse(raw) as NearDuplicate);
  }

  /** Checks pages against the index (and each other, in order), then adds them to it. */
  async check(pages: readonly SimhashedPage[]): Promise<NearDuplicate[]> {
    const found: NearDuplicate[] = [];
    const added: SimhashedPage[] = [];
    for (const page of pages) {
      if (page.simhash === EMPTY_SIMHASH || !/^[0-9a-f]{16}$/.test(page.simhash)) continue;
      const keys = this.bucketsOf(page.simhash);
      const members = (await Promise.all(keys.map((k) => this.redis.lrange(k, 0, -1)))).flat();
      const candidates = members
        .map(decode)
        .concat(added.filter((a) => keysShared(this.bucketsOf(a.simhash), keys)))
        .filter((c): c is SimhashedPage => c !== null && c.url_fp !== page.url_fp);
      let best: { c: SimhashedPage; d: number } | null = null;
      for (const c of candidates) {
        const d = hammingDistance(page.simhash, c.simhash);
        if (d <= this.maxDistance && (best === null || d < best.d)) best = { c, d };
      }
      if (best) {
        found.push({
          urlFp: page.url_fp,
          url: page.url,
          originFp: best.c.url_fp,
          originUrl: best.c.url,
          distance: best.d,
        });
        // A near duplicate is not an origin for others; its origin, matched again, stays.
        await this.remember(best.c);
        continue;
      }
      added.push(page);
      await this.remember(page);
    }
    return found;
  }

  /** Puts a page at the head of its four buckets. */
  private async remember(page: SimhashedPage): Promise<void> {
    const member = encode(page);
    const size = String(this.limits.bucketSize);
    await Promise.all(this.bucketsOf(page.simhash).map((k) => this.push(k, member, size)));
  }

  private bucketsOf(simhash: string): string[] {
    return [0, 1, 2, 3].map((band) => simhashBucketKey(this.prefix, band, simhash));
  }
}

function keysShared(a: string[], b: string[]): boolean {
  return a.some((k, i) => k === b[i]);
}

function encode(p: SimhashedPage): string {
  return `${p.simhash}|${p.url_fp}|${p.url}`;
}

function decode(raw: string): SimhashedPage | null {
  const [simhash, url_fp, ...rest] = raw.split('|');
  if (!simhash || !url_fp || rest.length === 0) return null;
  return { simhash, url_fp, url: rest.join('|') };
}
