// The human side of `npm run capacity`: one row per figure with how it was derived (formula,
// then the bench and date of each measured cost it uses). The JSON line carries the same figures.
import type { CapacityReport } from './compute-capacity';
import type { UnitCostName, UnitCosts } from './unit-costs';

/** A decimal byte count: 1.23 TB (powers of 1000, as disks are sold). */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? String(Math.round(v)) : v.toPrecision(3)} ${units[i]}`;
}

/** A count with thousands separators, or in billions past 1e9 (20e9 → "20.0 billion"). */
export function formatCount(n: number): string {
  if (Math.abs(n) >= 1e9) return `${(n / 1e9).toPrecision(3)} billion`;
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toPrecision(3)} million`;
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** The rows of the table: figure, value, derivation. */
export function reportRows(r: CapacityReport, costs: UnitCosts): Array<[string, string, string]> {
  const src = (name: UnitCostName): string => {
    const c = costs.costs[name];
    const date = c.date.slice(0, 10);
    return c.basis === 'measured'
      ? `${c.bench ?? ''} bench ${date}`
      : `derived ${date}, see BENCHMARKS.md`;
  };
  const u = r.unit_costs;
  const a = r.assumptions;
  const n = formatCount;
  return [
    ['Load', `${n(r.pages_per_day)} pages/day`, `${n(r.pages_per_s)} pages/s average`],
    [
      'URLs',
      `${n(r.urls_queued)} queued`,
      `${n(r.known_urls)} known, ${n(r.recrawl_urls)} on the re-crawl schedule`,
    ],
    [
      'Redis: queued URLs (today)',
      formatBytes(r.redis_queue_bytes),
      `queued × ${r.redis_queue_bytes_per_url} B (${u.redis_bytes_per_queued_url} B − ${u.frontier_bench_bloom_bits_per_url}/8 B of Bloom; ${src('redis_bytes_per_queued_url')})`,
    ],
    [
      'Redis: Bloom filters',
      formatBytes(r.redis_bloom_bytes),
      `known × ${r.bloom_bits_per_url} bits / 8; ${r.bloom_hashes} hashes → false positives (1 − e^(−k/b))^k = ${(r.bloom_fp_theory * 100).toFixed(2)}%${r.bloom_capped ? ' (capped at 2^32 bits a shard: more shards needed)' : ''}`,
    ],
    [
      'Redis: re-crawl schedule',
      formatBytes(r.redis_recrawl_bytes),
      `re-crawl URLs × ${u.recrawl_bytes_per_url} B (${src('recrawl_bytes_per_url')}); ${n(r.recrawl_fetches_per_day)} re-crawls/day → each URL every ${r.recrawl_interval_days ?? '∞'} days${r.recrawl_interval_over_max ? ' (longer than RECRAWL_MAX_INTERVAL_MS)' : ''}${r.recrawl_over_max_urls ? `; over RECRAWL_MAX_URLS (${n(r.config.RECRAWL_MAX_URLS)})` : ''}`,
    ],
    [
      'Redis: bounded structures',
      formatBytes(r.redis_bounded_bytes),
      `dedupe indexes and feed at their configured bounds (${src('content_index_bytes_per_body')}); does not grow with the load`,
    ],
    [
      'Redis today (every queued URL in RAM)',
      formatBytes(r.redis_bytes_today),
      `sum; ${formatBytes(r.redis_bytes_today_provisioned)} with ×${a.headroom} headroom; dominated by the ${r.redis_dominant}`,
    ],
    [
      'Redis: queued URLs (spill store)',
      formatBytes(r.redis_queue_bytes_with_spill),
      `queued × ${u.redis_bytes_per_queued_url_bounded} B, heads and seen set included (FRONTIER_HEAD_MAX ${r.spill_head_max}, ${n(u.spill_bench_urls_per_host)} URLs a host; ${src('redis_bytes_per_queued_url_bounded')})${r.known_urls > r.urls_queued ? ` + (known − queued) × ${r.config.FRONTIER_BLOOM_BITS_PER_URL} bits / 8` : ''}`,
    ],
    [
      'Redis with the spill store',
      formatBytes(r.redis_bytes_with_spill),
      `queued URLs (spill store) + re-crawl schedule + bounded structures; ${formatBytes(r.redis_bytes_with_spill_provisioned)} with ×${a.headroom} headroom; dominated by the ${r.redis_dominant_with_spill}`,
    ],
    [
      'Spill store size (Postgres)',
      formatBytes(r.spill_store_bytes),
      `spilled × ${u.spill_bytes_per_url} B (${src('spill_bytes_per_url')}); spilled ≈ queued − hosts × head = ${n(r.urls_queued)} − ${n(r.hosts)} × ${r.spill_head_max} = ${n(r.spilled_urls)} (one tier a host, each holding a full head)`,
    ],
    [
      'ClickHouse fetch rows/day',
      n(r.clickhouse_fetch_rows_per_day),
      `pages × ${u.fetch_rows_per_page} rows a page (${src('fetch_rows_per_page')})`,
    ],
    [
      'ClickHouse page rows/day',
      n(r.clickhouse_page_rows_per_day),
      'one parsed-page row per page at most',
    ],
    [
      'ClickHouse bytes/day',
      formatBytes(r.clickhouse_bytes_per_day),
      `fetch rows × ${n(u.clickhouse_bytes_per_fetch_row)} B (${src('clickhouse_bytes_per_fetch_row')}) + page rows × ${n(u.clickhouse_bytes_per_page_row)} B (${src('clickhouse_bytes_per_page_row')})`,
    ],
    [
      'Ingest consumers',
      String(r.ingest_consumers),
      `${n(r.ingest_rows_per_s)} rows/s × ${a.headroom} / ${n(u.ingest_rows_per_s_per_consumer)} rows/s a consumer (${src('ingest_rows_per_s_per_consumer')}); ${r.ingest_cores} cores at ${u.ingest_cpu_us_per_row} µs a row; telemetry only (the pages feed's ingest is not benched)`,
    ],
    [
      'WARC bytes/day',
      formatBytes(r.warc_bytes_per_day),
      `pages × (${n(a.avg_page_bytes)} B × ${a.warc_compression} + ${n(u.warc_record_overhead_bytes)} B of headers and request record) = ${formatBytes(r.warc_bytes_per_page)} a page`,
    ],
    [
      'Agent cores',
      String(r.agent_cores),
      `pages/s × ${u.agent_cpu_ms_per_page} ms × ${a.headroom} (${src('agent_cpu_ms_per_page')})`,
    ],
    [
      'Agents',
      String(r.agents),
      `max(by CPU ${r.agents_by_cpu}: pages/s × ${a.headroom} / ${u.agent_pages_per_s_per_process} pages/s a process; by leases ${r.agents_by_leases}: ${n(r.hosts_in_flight)} hosts at once (one page per ${a.host_interval_s} s) × ${a.headroom} / AGENT_MAX_HOSTS ${r.config.AGENT_MAX_HOSTS})`,
    ],
    [
      'Cores (agents + ingest)',
      String(r.cores),
      'Redis, ClickHouse server and the API not included',
    ],
  ];
}

/** The table as aligned text. */
export function formatTable(rows: Array<[string, string, string]>): string {
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([a, b, c]) => `${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`).join('\n');
}
