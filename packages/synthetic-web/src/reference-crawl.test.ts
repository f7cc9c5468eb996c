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
