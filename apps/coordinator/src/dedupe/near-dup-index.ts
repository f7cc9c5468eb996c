import { EMPTY_SIMHASH, hammingDistance } from '@crawler/shared/dedupe';
import type { RedisClient } from '@crawler/shared/redis';

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

/** Pages kept per band bucket: a bucket that full is a boilerplate cluster, not news. */
const MAX_BUCKET = 256;

/**
 * The near-duplicate index: SimHash-64 split into four 16-bit bands. Two hashes at most 3 bits
 * apart agree on at least one band (pigeonhole), so the candidates of a page are the pages
 * sharing one of its four band values, and only those are compared bit by bit. Each bucket is a
 * Redis set of `simhash|url_fp|url` (its own `{…}` slot on a cluster). The first page of a
 * cluster is its origin; later ones are recorded as near duplicates of it.
 */
export class NearDupIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** Largest Hamming distance counted as near (DEDUPE_NEAR_DISTANCE, at most 3). */
    private readonly maxDistance: number,
  ) {
    if (maxDistance > 3) throw new RangeError('four 16-bit bands find distances up to 3 only');
  }

  /**
   * Checks pages against the index and records each near duplicate's origin (`near-dup` hash:
   * url_fp → JSON), so the URL inspector and the API can say what a page is a near copy of.
   */
  async checkAndRecord(pages: readonly SimhashedPage[]): Promise<NearDuplicate[]> {
    const found = await this.check(pages);
    if (found.length > 0)
      await this.redis.hset(
        this.recordKey(),
        Object.fromEntries(found.map((d) => [d.urlFp, JSON.stringify(d)])),
      );
    return found;
  }

  /** The recorded origin of a near duplicate, or null. */
  async originOf(urlFp: string): Promise<NearDuplicate | null> {
    const raw = await this.redis.hget(this.recordKey(), urlFp);
    return raw === null ? null : (JSON.parse(raw) as NearDuplicate);
  }

  private recordKey(): string {
    return `${this.prefix}:near-dup`;
  }

  /** Checks pages against the index (and each other, in order), then adds them to it. */
  async check(pages: readonly SimhashedPage[]): Promise<NearDuplicate[]> {
    const found: NearDuplicate[] = [];
    const added: SimhashedPage[] = [];
    for (const page of pages) {
      if (page.simhash === EMPTY_SIMHASH || !/^[0-9a-f]{16}$/.test(page.simhash)) continue;
      const keys = this.bucketsOf(page.simhash);
      const members = (await Promise.all(keys.map((k) => this.redis.smembers(k)))).flat();
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
        continue; // a near duplicate is not an origin for others
      }
      added.push(page);
      await Promise.all(
        keys.map(async (k) => {
          if ((await this.redis.scard(k)) < MAX_BUCKET) await this.redis.sadd(k, encode(page));
        }),
      );
    }
    return found;
  }

  private bucketsOf(simhash: string): string[] {
    return [0, 1, 2, 3].map(
      (band) => `${this.prefix}:simhash:{${band}:${simhash.slice(band * 4, band * 4 + 4)}}`,
    );
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
