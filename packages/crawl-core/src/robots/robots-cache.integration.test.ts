import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClient } from '@crawler/adapters/redis';
import { redisTestBed } from '@crawler/testing';
import { RobotsCache, robotsAllows } from './robots-cache';
import { createParsePool, type ParsePool } from '../parse/parse-pool';
import { robotsReaderFor, ROBOTS_WORKER_MIN_CHARS } from './robots-reader';

// The agent's robots cache against a real Redis: compiled rules kept in an LRU bounded by bytes.
const bed = redisTestBed('robots');
const prefix = bed.prefix;
let redis: RedisClient;

beforeAll(async () => {
  redis = await bed.open();
});
afterAll(bed.close);

/** A robots.txt of `rules` Disallow lines (~40 bytes each). */
function robotsTxt(rules: number): string {
  const lines = ['User-agent: *'];
  for (let i = 0; i < rules; i++) lines.push(`Disallow: /section-${i}/private/page-*.html`);
  return lines.join('\n');
}

const cacheOf = (maxBytes: number) =>
  new RobotsCache(redis, (origin) => `${prefix}:robots:${origin}`, 'crawlerbot', maxBytes);

describe('RobotsCache', () => {
  it('keeps compiled rules within its byte budget, least recently used out first', async () => {
    const cache = cacheOf(1024 * 1024);
    // ~1,000 rules compile to ~300 KB: three fit in 1 MiB, not four.
    for (const n of [1, 2, 3]) {
      const state = await cache.record(`http://h${n}.test`, { status: 200, body: robotsTxt(1000) });
      expect(state.kind).toBe('rules');
    }
    expect(cache.size.entries).toBe(3);
    await cache.cached('http://h1.test'); // h1 is now the most recent
    await cache.record('http://h4.test', { status: 200, body: robotsTxt(1000) });
    expect(cache.size.entries).toBe(3);
    expect(cache.size.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.size.bytes).toBeGreaterThan(700 * 1024);
    // h2 left the process: with Redis's copy gone too, it must be fetched again.
    await redis.del(`${prefix}:robots:http://h1.test`, `${prefix}:robots:http://h2.test`);
    expect(await cache.cached('http://h1.test')).not.toBeNull(); // still in process
    expect(await cache.cached('http://h2.test')).toBeNull();
    const h3 = await cache.cached('http://h3.test');
    expect(h3 && robotsAllows(h3.state, 'http://h3.test/section-5/private/page-1.html')).toBe(
      false,
    );
  });

  it('does not keep in process a file larger than the whole budget, but answers for it', async () => {
    const cache = cacheOf(64 * 1024);
    await cache.record('http://small.test', { status: 200, body: robotsTxt(3) });
    const state = await cache.record('http://huge.test', { status: 200, body: robotsTxt(2000) });
    expect(robotsAllows(state, 'http://huge.test/section-1999/private/page-2.html')).toBe(false);
    expect(cache.size.entries).toBe(1);
    const again = await cache.cached('http://huge.test');
    expect(again && robotsAllows(again.state, 'http://huge.test/elsewhere')).toBe(true);
    expect(cache.size.entries).toBe(1);
  });

  it('counts consecutive failures, and a success resets them', async () => {
    const cache = cacheOf(1024 * 1024);
    const origin = 'http://flaky.test';
    expect(await cache.record(origin, { status: 503, body: '' })).toEqual({
      kind: 'disallow_all',
      failures: 1,
    });
    expect(await cache.record(origin, { error: 'timeout' })).toEqual({
      kind: 'disallow_all',
      failures: 2,
    });
    expect(await cache.cached(origin)).toBeNull();
    expect((await cache.record(origin, { status: 200, body: robotsTxt(1) })).kind).toBe('rules');
    expect(await cache.failures(origin)).toBe(0);
  });

  it('reads a large robots.txt in a parse-pool worker, a small one here, with the same verdicts', async () => {
    const pool = createParsePool({ threads: 1 });
    const sent: number[] = [];
    const counting: ParsePool = {
      ...pool,
      robots: (input, call) => {
        sent.push(input.body.length);
        return pool.robots(input, call);
      },
    };
    const here = cacheOf(32 * 1024 * 1024);
    const viaPool = new RobotsCache(
      redis,
      (origin) => `${prefix}:pooled:${origin}`,
      'crawlerbot',
      32 * 1024 * 1024,
      robotsReaderFor(counting),
    );
    try {
      const big = `${robotsTxt(5000)}\nAllow: /section-7/private/page-ok.html$\nCrawl-delay: 2`;
      expect(big.length).toBeGreaterThan(ROBOTS_WORKER_MIN_CHARS);
      const a = await here.record('http://big.test', { status: 200, body: big });
      const b = await viaPool.record('http://big.test', { status: 200, body: big });
      expect(sent).toEqual([big.length]);
      for (const path of [
        '/section-4999/private/page-1.html',
        '/section-7/private/page-ok.html',
        '/section-7/private/page-ok.htmlx',
        '/section-7/public/x',
      ]) {
        const url = `http://big.test${path}`;
        expect(robotsAllows(b, url)).toBe(robotsAllows(a, url));
      }
      expect(robotsAllows(b, 'http://big.test/section-7/private/page-ok.html')).toBe(true);
      expect(b.kind === 'rules' && b.rules.crawlDelayS).toBe(2);
      // A small file stays on the event loop.
      await viaPool.record('http://small.test', { status: 200, body: robotsTxt(3) });
      expect(sent).toHaveLength(1);
      // A closed pool: the body is read here, the rules still hold.
      await pool.close();
      const closed = await viaPool.record('http://big2.test', { status: 200, body: big });
      expect(sent).toHaveLength(2);
      expect(robotsAllows(closed, 'http://big2.test/section-10/private/page-3.html')).toBe(false);
    } finally {
      await pool.close();
    }
  });
});
