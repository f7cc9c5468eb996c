/**
 * Benchmark: `npx tsx packages/analytics/src/bench-insert-fetches.ts [rows] [batches]`
 * inserts `batches` batches of `rows` fetch rows into a temp embedded store, replays one batch,
 * and prints JSON: insert rows/s (validation + encoding + ClickHouse) and fetchStats latency.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFetchRows } from './fetch-row';
import { openAnalytics, type FetchRow } from './index';

function makeRows(count: number, offset: number, now: number): FetchRow[] {
  return Array.from({ length: count }, (_, k) => {
    const i = offset + k;
    const status = [200, 200, 200, 301, 404, 503, 0][i % 7] ?? 200;
    return {
      url_fp: ((BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn)
        .toString(16)
        .padStart(16, '0'),
      url: `https://host${i % 5000}.example.com/section/${i % 97}/article-${i}.html?ref=home`,
      host: `host${i % 5000}.example.com`,
      fetched_at: new Date(now - i * 3),
      status,
      error_code: status === 0 ? 'timeout' : '',
      bytes: 20_000 + (i % 5000),
      fetch_ms: 50 + (i % 400),
      content_type: 'text/html; charset=utf-8',
      content_hash: status === 200 ? i.toString(16).padStart(64, '0') : '',
      depth: i % 8,
      agent_id: `agent-${i % 4}`,
      warc_key: `crawl/2026-11-30/agent-${i % 4}/${String(Math.floor(i / 50_000)).padStart(5, '0')}.warc.gz`,
      warc_offset: i * 7000,
      warc_length: 6500,
      redirect_to: status === 301 ? `https://host${i % 5000}.example.com/moved/${i}` : '',
    };
  });
}

async function main(): Promise<void> {
  const rowsPerBatch = Number(process.argv[2] ?? 100_000);
  const batches = Number(process.argv[3] ?? 10);
  const dir = await mkdtemp(join(tmpdir(), 'analytics-bench-'));
  const store = await openAnalytics({ path: dir });
  try {
    await store.migrate();
    const now = Date.now();
    const all = Array.from({ length: batches }, (_, b) =>
      makeRows(rowsPerBatch, b * rowsPerBatch, now),
    );
    const first = all[0] ?? [];

    const e0 = performance.now();
    await encodeFetchRows(first);
    const encodeMs = performance.now() - e0;
    const cpu0 = process.cpuUsage();

    const insertMs: number[] = [];
    for (const batch of all) {
      const t0 = performance.now();
      await store.insertFetches(batch);
      insertMs.push(performance.now() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    await store.insertFetches(first); // replay

    const statsMs: number[] = [];
    let total = 0;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      total = (await store.fetchStats()).total;
      statsMs.push(performance.now() - t0);
    }
    const firstInsertMs = insertMs[0] ?? 0;
    console.log(
      JSON.stringify({
        bench: 'analytics-insert-fetches',
        rowsPerBatch,
        batches,
        firstBatchRowsPerSecond: Math.round(rowsPerBatch / (firstInsertMs / 1000)),
        meanRowsPerSecond: Math.round(
          (rowsPerBatch * batches) / (insertMs.reduce((a, b) => a + b, 0) / 1000),
        ),
        validateAndEncodeRowsPerSecond: Math.round(rowsPerBatch / (encodeMs / 1000)),
        processCpuUsPerRow: +((cpu.user + cpu.system) / (rowsPerBatch * batches)).toFixed(2),
        fetchStatsMs: statsMs.map((ms) => Math.round(ms)),
        totalAfterReplay: total,
      }),
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
