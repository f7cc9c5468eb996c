import { readRequestLog, scoreCrawl, type ScoreReport } from '@crawler/synthetic-web';
import { referenceCrawl } from '@crawler/synthetic-web/testing';
import { startQualityWeb } from './quality-web';
import { safetyMarginMs } from '@crawler/crawl-core';

/** What the oracle reached, scored like the crawl. */
export interface OracleRun {
  report: ScoreReport;
  /** Requests that failed (hostile hosts: oversized headers, time-outs…). */
  errors: number;
}

/**
 * The oracle: the synthetic web's reference crawler restricted to the manifest's URLs, with the
 * crawl's politeness (robots.txt first, its gap after every response, Crawl-delay, one
 * connection per host, every host at once), for `seconds`, against a fresh copy of the same web.
 * It knows the answer, so it fetches no trap and no variant: the coverage a crawler with perfect
 * trap rules could reach in that time.
 */
export async function runOracle(o: {
  root: string;
  hosts: number;
  seed: string;
  token: string;
  dir: string;
  seconds: number;
  gapMs: number;
  requestTimeoutMs: number;
}): Promise<OracleRun> {
  const web = await startQualityWeb({
    root: o.root,
    hosts: o.hosts,
    seed: o.seed,
    token: o.token,
    dir: o.dir,
  });
  try {
    let requests = 0;
    let errors = 0;
    const t0 = performance.now();
    const progress = setInterval(() => {
      const s = (performance.now() - t0) / 1000;
      console.error(`oracle: [${s.toFixed(0)}s] ${requests} requests, ${errors} failed`);
    }, 10_000);
    try {
      await referenceCrawl({
        seeds: web.seeds,
        dnsMap: web.dnsMap,
        token: o.token,
        gapMs: o.gapMs,
        // The agent's own safety margin at this gap (packages/crawl-core/src/lease/host-pacer.ts).
        gapSlackMs: safetyMarginMs(o.gapMs),
        concurrency: o.hosts,
        only: new Set(web.manifest.expected),
        durationMs: o.seconds * 1000,
        requestTimeoutMs: o.requestTimeoutMs,
        onError: () => errors++,
        onRequest: () => requests++,
      });
    } finally {
      clearInterval(progress);
    }
    await web.stop();
    const report = scoreCrawl({
      log: await readRequestLog(web.logPath),
      manifest: web.manifest,
      productToken: o.token,
      minGapMs: o.gapMs,
      durationS: o.seconds,
    });
    return { report, errors };
  } finally {
    await web.stop();
  }
}
