import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@crawler/domain/config';
import { describe, expect, it } from 'vitest';
import { CapacityUsageError, parseCapacityArgs } from './capacity-options';
import { bloomFor, computeCapacity, type CapacityReport } from './compute-capacity';
import {
  costValues,
  extractUnitCostsBlock,
  parseUnitCosts,
  UNIT_COSTS_HEADING,
  UnitCostsError,
} from './unit-costs';

// `npm run capacity`: the per-unit costs block of the real docs/BENCHMARKS.md, the arithmetic on
// small loads, and the JSON line of the script itself.
const root = fileURLToPath(new URL('../..', import.meta.url));
const benchmarks = readFileSync(`${root}docs/BENCHMARKS.md`, 'utf8');
const costs = parseUnitCosts(benchmarks);
const values = costValues(costs);
const config = loadConfig({});

function report(args: string[]): CapacityReport {
  const { load, assumptions } = parseCapacityArgs(args);
  return computeCapacity(load, assumptions, values, config);
}

/** Every figure of the JSON line, by name (kept by hand: a new figure must be added here). */
const FIELDS: Array<keyof CapacityReport> = [
  'pages_per_day', 'pages_per_s', 'urls_queued', 'known_urls', 'recrawl_urls',
  'redis_queue_bytes_per_url', 'redis_queue_bytes', 'bloom_bits_per_url', 'bloom_hashes',
  'bloom_bits_per_shard', 'bloom_capped', 'bloom_fp_theory', 'redis_bloom_bytes',
  'redis_recrawl_bytes', 'recrawl_fetches_per_day', 'recrawl_interval_days',
  'recrawl_over_max_urls', 'recrawl_interval_over_max', 'redis_bounded_bytes',
  'redis_bytes_today', 'redis_bytes_today_provisioned', 'redis_dominant', 'hosts', 'spill_head_max',
  'spilled_urls', 'redis_queue_bytes_with_spill', 'redis_bytes_with_spill',
  'redis_bytes_with_spill_provisioned', 'redis_dominant_with_spill', 'spill_store_bytes', 'clickhouse_fetch_rows_per_day',
  'clickhouse_page_rows_per_day', 'clickhouse_fetch_bytes_per_day',
  'clickhouse_page_bytes_per_day', 'clickhouse_bytes_per_day', 'ingest_rows_per_s',
  'ingest_consumers', 'ingest_cores', 'warc_bytes_per_page', 'warc_bytes_per_day',
  'agent_cores', 'agents_by_cpu', 'hosts_in_flight', 'agents_by_leases', 'agents', 'cores',
  'assumptions', 'unit_costs', 'config',
]; // prettier-ignore

describe('the per-unit costs block of docs/BENCHMARKS.md', () => {
  it('parses, and each measured figure is its bench line’s, the line verbatim in a table', () => {
    const raw = JSON.parse(extractUnitCostsBlock(benchmarks)) as { lines: Record<string, string> };
    for (const line of Object.values(raw.lines)) expect(benchmarks).toContain(`\`${line}\``);
    const measured = Object.values(costs.costs).filter((c) => c.basis === 'measured');
    expect(measured.length).toBeGreaterThanOrEqual(9);
    expect(values.redis_bytes_per_queued_url).toBe(142);
    expect(values.redis_bytes_per_queued_url_bounded).toBeLessThan(25);
    expect(values.spill_bench_head_max).toBe(128);
    expect(values.agent_cpu_ms_per_page).toBeGreaterThan(1);
  });

  it('refuses a missing or malformed block with a clear message', () => {
    expect(() => parseUnitCosts('# Benchmarks\n')).toThrow(UnitCostsError);
    expect(() => parseUnitCosts('# Benchmarks\n')).toThrow(/no heading/);
    const block = extractUnitCostsBlock(benchmarks);
    const swap = (to: string): string => benchmarks.replace(block, () => `${to.trimEnd()}\n`);
    expect(() => parseUnitCosts(swap('{ not json'))).toThrow(/not JSON/);
    const wrong = block.replace('"value": 142,', '"value": 99,');
    expect(() => parseUnitCosts(swap(wrong))).toThrow(
      /redis_bytes_per_queued_url: value 99 but the line says 142/,
    );
    const missing = JSON.parse(block) as { costs: Record<string, unknown> };
    delete missing.costs.agent_cpu_ms_per_page;
    expect(() => parseUnitCosts(swap(JSON.stringify(missing)))).toThrow(/agent_cpu_ms_per_page/);
    const noFence = benchmarks.replace(
      `${UNIT_COSTS_HEADING}\n`,
      `${UNIT_COSTS_HEADING}\n\n## x\n`,
    );
    expect(() => parseUnitCosts(noFence)).toThrow(/no ```json block/);
  });
});

describe('computeCapacity', () => {
  const base = ['--pages-per-day', '86400000', '--urls-queued', '1000000'];

  it('works out a small load by hand', () => {
    const r = report([...base, '--known-urls', '6400000', '--headroom', '1']);
    expect(r.pages_per_s).toBe(1000);
    expect(r.redis_queue_bytes).toBe(1_000_000 * (values.redis_bytes_per_queued_url - 10 / 8));
    expect(r.redis_bloom_bytes).toBe((6_400_000 * config.FRONTIER_BLOOM_BITS_PER_URL) / 8);
    expect(r.bloom_fp_theory).toBeCloseTo((1 - Math.exp(-7 / 10)) ** 7, 5);
    expect(r.redis_recrawl_bytes).toBe(6_400_000 * values.recrawl_bytes_per_url);
    expect(r.recrawl_interval_days).toBeCloseTo(6_400_000 / (86_400_000 * 0.6), 1);
    expect(r.warc_bytes_per_page).toBe(64_000 * 0.25 + values.warc_record_overhead_bytes);
    expect(r.agent_cores).toBeCloseTo(values.agent_cpu_ms_per_page, 1);
    expect(r.agents_by_cpu).toBe(Math.ceil(1000 / values.agent_pages_per_s_per_process));
    expect(r.hosts_in_flight).toBe(1000);
    expect(r.agents_by_leases).toBe(Math.ceil(1000 / config.AGENT_MAX_HOSTS));
    expect(r.clickhouse_fetch_rows_per_day).toBe(
      Math.round(86_400_000 * values.fetch_rows_per_page),
    );
    expect(r.redis_bytes_today).toBe(
      r.redis_queue_bytes + r.redis_bloom_bytes + r.redis_recrawl_bytes + r.redis_bounded_bytes,
    );
  });

  it('doubles agents, cores, rows and WARC bytes with the pages, and Redis with the URLs', () => {
    const one = report(base);
    const two = report(['--pages-per-day', '172800000', '--urls-queued', '1000000']);
    expect(two.warc_bytes_per_day).toBe(2 * one.warc_bytes_per_day);
    expect(two.agent_cores).toBeCloseTo(2 * one.agent_cores, 1);
    expect(two.agents_by_cpu).toBeGreaterThanOrEqual(2 * one.agents_by_cpu - 1);
    expect(two.agents_by_cpu).toBeLessThanOrEqual(2 * one.agents_by_cpu);
    expect(two.clickhouse_bytes_per_day).toBeCloseTo(2 * one.clickhouse_bytes_per_day, -1);
    expect(two.redis_queue_bytes).toBe(one.redis_queue_bytes);
    const more = report(['--pages-per-day', '86400000', '--urls-queued', '2000000']);
    expect(more.redis_queue_bytes).toBe(2 * one.redis_queue_bytes);
    expect(more.redis_bloom_bytes).toBe(2 * one.redis_bloom_bytes);
    expect(more.warc_bytes_per_day).toBe(one.warc_bytes_per_day);
  });

  it('works out the spill store: heads in Redis at the bounded figure, the rest in Postgres', () => {
    const head = values.spill_bench_head_max;
    const r = report([...base, '--hosts', '1000', '--known-urls', '3000000', '--headroom', '1']);
    expect(r.spilled_urls).toBe(1_000_000 - 1000 * head);
    expect(r.spill_store_bytes).toBe(r.spilled_urls * values.spill_bytes_per_url);
    // The bounded figure holds the queued URLs' seen set: only known beyond queued adds bits.
    expect(r.redis_queue_bytes_with_spill).toBe(
      1_000_000 * values.redis_bytes_per_queued_url_bounded +
        (2_000_000 * config.FRONTIER_BLOOM_BITS_PER_URL) / 8,
    );
    expect(r.redis_bytes_with_spill).toBe(
      r.redis_queue_bytes_with_spill + r.redis_recrawl_bytes + r.redis_bounded_bytes,
    );
    expect(r.redis_bytes_with_spill).toBeLessThan(r.redis_bytes_today);
    // Hosts default to the bench's URLs a host; hosts whose heads hold everything spill nothing.
    expect(report(base).hosts).toBe(1_000_000 / values.spill_bench_urls_per_host);
    const few = report(['--pages-per-day', '86400000', '--urls-queued', '1000', '--hosts', '100']);
    expect(few.spilled_urls).toBe(0);
    expect(few.spill_store_bytes).toBe(0);
  });

  it('caps a Bloom filter at 2^32 bits a shard and says so', () => {
    const b = bloomFor(1e12, {
      FRONTIER_SHARDS: 64,
      FRONTIER_BLOOM_BITS_PER_URL: 10,
      FRONTIER_BLOOM_HASHES: 7,
    });
    expect(b.capped).toBe(true);
    expect(b.bitsPerShard).toBe(2 ** 32 - 1);
    expect(b.fp).toBeGreaterThan(0.5);
  });

  it('reads 1e9 and 20_000_000_000 as numbers', () => {
    const { load } = parseCapacityArgs([
      '--pages-per-day',
      '1e9',
      '--urls-queued',
      '20_000_000_000',
    ]);
    expect(load).toEqual({ pagesPerDay: 1e9, urlsQueued: 2e10 });
  });

  it('refuses a bad command line with the usage', () => {
    expect(() => parseCapacityArgs(['--pages-per-day', '10'])).toThrow(CapacityUsageError);
    expect(() => parseCapacityArgs([...base, '--headroom', '0.5'])).toThrow(/--headroom/);
    expect(() => parseCapacityArgs([...base, '--warc-compression', '2'])).toThrow(/usage/);
    expect(() => parseCapacityArgs([...base, '--nope', '1'])).toThrow(/Unknown option/);
  });
});

describe('npm run capacity', () => {
  it('prints the table, then a JSON line with every figure, as docs/CAPACITY.md shows', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/capacity.ts',
        '--pages-per-day',
        '1000000000',
        '--urls-queued',
        '20000000000',
      ],
      { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Load\s+1\.00 billion pages\/day/);
    const json = JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
    expect(json.report).toBe('capacity');
    expect(Object.keys(json).sort()).toEqual(['report', ...FIELDS].sort());
    for (const f of FIELDS) {
      if (f === 'recrawl_interval_days' || typeof json[f] === 'number') {
        expect(Number.isFinite(json[f])).toBe(true);
      }
    }
    expect(Object.keys(json.unit_costs as object).sort()).toEqual(Object.keys(costs.costs).sort());
    // docs/CAPACITY.md shows this very output: a changed figure in the block changes it too.
    const doc = readFileSync(`${root}docs/CAPACITY.md`, 'utf8');
    expect(/```text\n([\s\S]*?)```/.exec(doc)?.[1]).toBe(run.stdout);
  });
});
