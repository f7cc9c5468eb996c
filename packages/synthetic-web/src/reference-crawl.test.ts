import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRequestLog, scoreCrawl, startSyntheticWeb } from './index.js';
import { referenceCrawl } from './testing/reference-crawler.js';

describe('a polite reference crawl over real HTTP', () => {
  it('requests exactly the expected URLs and scores clean', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'synthetic-web-'));
    const logPath = join(dir, 'requests.jsonl');
    const web = await startSyntheticWeb({ hosts: 50, seed: 3, hostile: false, logPath });
    try {
      const manifest = web.manifest();
      const requested = await referenceCrawl({
        seeds: web.seeds,
        dnsMap: web.dnsMap,
        token: 'crawlerbot',
        gapMs: 0,
        concurrency: 32,
      });
      expect([...requested].sort()).toEqual(manifest.expected);
      await web.close();
      const log = await readRequestLog(logPath);
      expect(log.sort((a, b) => a.seq - b.seq)).toEqual(web.log());
      const report = scoreCrawl({ log, manifest, productToken: 'crawlerbot', minGapMs: 0 });
      expect(report).toMatchObject({
        coverage: 1,
        politeness_violations: 0,
        robots_violations: 0,
        duplicate_fetches: 0,
        trap_pages: 0,
        violations: [],
      });
      // The same log judged with a larger configured gap shows politeness violations.
      expect(
        scoreCrawl({ log, manifest, productToken: 'crawlerbot', minGapMs: 1000 })
          .politeness_violations,
      ).toBeGreaterThan(0);
    } finally {
      await web.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the reference crawl on a web with trap families', () => {
  it('requests exactly the expected URLs (its rules avoid every trap) and scores clean', async () => {
    const web = await startSyntheticWeb({ hosts: 60, seed: 4, hostile: false, trapFamilies: true });
    try {
      const manifest = web.manifest();
      const requested = await referenceCrawl({
        seeds: web.seeds,
        dnsMap: web.dnsMap,
        token: 'crawlerbot',
        gapMs: 0,
        concurrency: 32,
      });
      expect([...requested].sort()).toEqual(manifest.expected);
      const report = scoreCrawl({
        log: web.log(),
        manifest,
        productToken: 'crawlerbot',
        minGapMs: 0,
      });
      expect(report).toMatchObject({
        coverage: 1,
        politeness_violations: 0,
        robots_violations: 0,
        duplicate_fetches: 0,
        trap_fetches: 0,
        variant_fetches: 0,
        probe_fetches: 0,
        violations: [],
      });
    } finally {
      await web.close();
    }
  });

  it('as the oracle: manifest URLs only, and no request after its time is up', async () => {
    const web = await startSyntheticWeb({ hosts: 40, seed: 2, trapFamilies: true });
    try {
      const manifest = web.manifest();
      const only = new Set(manifest.expected.filter((_, i) => i % 2 === 0));
      const errors: Error[] = [];
      const t0 = performance.timeOrigin + performance.now();
      const requested = await referenceCrawl({
        seeds: web.seeds,
        dnsMap: web.dnsMap,
        token: 'crawlerbot',
        gapMs: 50,
        concurrency: 40,
        only,
        durationMs: 1500,
        requestTimeoutMs: 1000,
        onError: (err) => errors.push(err),
      });
      const t1 = performance.timeOrigin + performance.now();
      // Hostile hosts (trickle, huge headers...) fail or time out; the crawl goes on.
      expect(t1 - t0).toBeLessThan(3000);
      expect(requested.size).toBeGreaterThan(0);
      for (const u of requested) expect(only.has(u), u).toBe(true);
      const log = web.log().filter((e) => !e.target.endsWith('/robots.txt'));
      expect(log.every((e) => e.startMs <= t0 + 1500 + 5)).toBe(true);
      const report = scoreCrawl({
        log: web.log(),
        manifest,
        productToken: 'crawlerbot',
        minGapMs: 50,
      });
      expect(report.politeness_violations).toBe(0);
      expect(report.robots_violations).toBe(0);
      expect(report.trap_fetches).toBe(0);
    } finally {
      await web.close();
    }
  });
});
