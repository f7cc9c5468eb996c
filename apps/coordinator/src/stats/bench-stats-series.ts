/**
 * Benchmark: `npx tsx apps/coordinator/src/stats/bench-stats-series.ts [rows]` inserts `rows`
 * (default 1,000,000) fetch rows spread over the last 24 h into a temp embedded store, then
 * prints JSON: the median latency of GET /v1/stats/series for each window (5 runs each; the
 * 1 h, 6 h and 24 h windows read the per-minute rollups, the 15 min one `fetch_timeline`), the
 * same windows read from `fetches` itself for comparison (`raw_*`), and how many parts/granules
 * the 15 min window reads in `fetch_timeline` (EXPLAIN indexes = 1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAnalytics, type FetchRow } from '@crawler/analytics';
import { statsSeries, type SeriesSource } from './stats-series';

function rows(count: number, offset: number, now: number, total: number): FetchRow[] {
  return Array.from({ length: count }, (_, k) => {
    const i = offset + k;
    const status = [200, 200, 200, 304, 301, 404, 503, 0][i % 8]!;
    return {
      url_fp: i.toString(16).padStart(16, '0'),
      url: `https://host${i % 5000}.example.com/a/${i}.html`,
      host: `host${i % 5000}.example.com`,
      fetched_at: new Date(now - Math.floor(((total - i) / total) * 86_400_000)),
      status,
      error_code: status === 0 ? 'total_timeout' : status === 503 ? 'http_503' : '',
      bytes: 20_000 + (i % 5000),
      fetch_ms: 50 + (i % 900),
      content_type: 'text/html',
      content_hash: (i % 1000).toString(16).padStart(64, '0'),
      depth: i % 8,
      agent_id: `agent-${i % 4}`,
      warc_key: '',
      warc_offset: 0,
      warc_length: 0,
      redirect_to: '',
      simhash: (i % 700).toString(16).padStart(16, '0'),
      duplicate_of: i % 50 === 0 ? 'https://host0.example.com/a/0.html' : '',
    };
  });
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 1_000_000);
  const dir = await mkdtemp(join(tmpdir(), 'series-bench-'));
  const analytics = await openAnalytics({ path: dir });
  try {
    await analytics.migrate();
    const now = Date.now();
    const batch = 100_000;
    for (let o = 0; o < total; o += batch)
      await analytics.insertFetches(rows(Math.min(batch, total - o), o, now, total));
    const out: Record<string, unknown> = { rows: total };
    const median = async (window: '15m' | '1h' | '6h' | '24h', source: SeriesSource) => {
      const ms: number[] = [];
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        await statsSeries({ analytics }, { window }, Date.now(), source);
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      return Math.round(ms[2]!);
    };
    for (const window of ['15m', '1h', '6h', '24h'] as const)
      out[`series_${window}_median_ms`] = await median(window, 'auto');
    for (const window of ['15m', '1h', '6h', '24h'] as const)
      out[`raw_${window}_median_ms`] = await median(window, 'fetches');
    out.explain_15m = (
      await analytics.queryJson<{ explain: string }>(
        `EXPLAIN indexes = 1 SELECT count() FROM fetch_timeline
         WHERE fetched_at >= fromUnixTimestamp64Milli({from:Int64})`,
        { from: now - 900_000 },
      )
    )
      .map((r) => r.explain.trim())
      .filter((l) => /Parts|Granules|Type/.test(l));
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await analytics.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
