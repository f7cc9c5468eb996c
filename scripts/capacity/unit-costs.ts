// The measured per-unit costs `npm run capacity` works from, read from docs/BENCHMARKS.md (the
// JSON block under "Per-unit costs (read by `npm run capacity`)"), never copied into code: a new
// bench run changes the capacity figures by an edit of that block alone.
import { CrawlerError } from '@crawler/domain/errors';
import { z } from 'zod';

/** The heading the block sits under; the first ```json fence after it is the block. */
export const UNIT_COSTS_HEADING = '## Per-unit costs (read by `npm run capacity`)';

/** Raised when the block is missing or does not match {@link UnitCostsSchema}. */
export class UnitCostsError extends CrawlerError {
  readonly code = 'UNIT_COSTS_INVALID';
  readonly retry = 'give_up';
  constructor(message: string) {
    super(message);
    this.name = 'UnitCostsError';
  }
}

/** A bench's last JSON line, verbatim: an object. */
const JsonLineSchema = z.string().transform((s, ctx) => {
  try {
    const parsed: unknown = JSON.parse(s);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'not the JSON object of a bench line' });
  return z.NEVER;
});

/**
 * One figure. `measured`: read off a bench's last JSON line (`line` names it in `lines`), as its
 * `field` or as the `ratio` of two of its fields; `value` must say the same (a ratio within
 * 0.5%). `derived`: not printed by any bench; `derivation` says how it was obtained.
 */
const CostSchema = z
  .object({
    value: z.number().positive(),
    unit: z.string().min(1),
    basis: z.enum(['measured', 'derived']),
    bench: z.string().min(1).optional(),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'date: YYYY-MM-DD first'),
    field: z.string().min(1).optional(),
    ratio: z.tuple([z.string().min(1), z.string().min(1)]).optional(),
    line: z.string().min(1).optional(),
    derivation: z.string().min(1).optional(),
    note: z.string().optional(),
  })
  .strict();
type Cost = z.output<typeof CostSchema>;

/** Why `cost` does not agree with `lines`, or undefined when it does. */
function costProblem(
  cost: Cost,
  lines: Record<string, Record<string, unknown>>,
): string | undefined {
  const line = cost.line === undefined ? undefined : lines[cost.line];
  if (cost.line !== undefined && !line) return `line "${cost.line}" is not in lines`;
  if (cost.basis === 'derived')
    return cost.derivation ? undefined : 'a derived figure needs a derivation';
  if (!cost.bench || !line) return 'a measured figure needs its bench and JSON line';
  if (line.bench !== cost.bench)
    return `bench "${cost.bench}" but the line is of "${String(line.bench)}"`;
  const from = lineValue(line, cost.field, cost.ratio);
  if (from === undefined) return 'field (or ratio fields) not numbers in the line';
  const slack = cost.ratio ? 0.005 * from : 0;
  return Math.abs(from - cost.value) > slack
    ? `value ${cost.value} but the line says ${from}`
    : undefined;
}

function lineValue(
  line: Record<string, unknown>,
  field: string | undefined,
  ratio: [string, string] | undefined,
): number | undefined {
  if (field !== undefined && ratio === undefined) {
    const v = line[field];
    return typeof v === 'number' ? v : undefined;
  }
  if (ratio !== undefined && field === undefined) {
    const [a, b] = [line[ratio[0]], line[ratio[1]]];
    return typeof a === 'number' && typeof b === 'number' && b > 0 ? a / b : undefined;
  }
  return undefined;
}

/** Every figure the capacity model needs; an unknown or missing one is an error. */
export const UnitCostsSchema = z
  .object({
    schema: z.literal(1),
    /** Bench lines by a name (bench, date, what ran), verbatim as in the tables. */
    lines: z.record(z.string(), JsonLineSchema),
    costs: z
      .object({
        /** Redis `used_memory` per queued URL, Bloom filters of the bench's sizing included. */
        redis_bytes_per_queued_url: CostSchema,
        /** Bloom bits a URL the frontier bench sized its filters at (part of the figure above). */
        frontier_bench_bloom_bits_per_url: CostSchema,
        /** With FRONTIER_HEAD_MAX: Redis per queued URL (heads and seen set included), spill rows. */
        redis_bytes_per_queued_url_bounded: CostSchema,
        spill_bytes_per_url: CostSchema,
        /** The head bound and the URLs a host the two figures above were measured at. */
        spill_bench_head_max: CostSchema,
        spill_bench_urls_per_host: CostSchema,
        /** Re-crawl schedule (`rc:meta` + `rc:due`) per scheduled URL. */
        recrawl_bytes_per_url: CostSchema,
        /** Bounded Redis structures: per entry, at the configured bounds. */
        content_index_bytes_per_body: CostSchema,
        near_dup_bytes_per_full_bucket_of_16: CostSchema,
        near_dup_bytes_per_verdict: CostSchema,
        /** Agent CPU (all threads) per page, and one agent process's pages per second. */
        agent_cpu_ms_per_page: CostSchema,
        agent_pages_per_s_per_process: CostSchema,
        /** Telemetry (fetch) rows a page costs: robots.txt, refusals and retries included. */
        fetch_rows_per_page: CostSchema,
        /** One ingest consumer (the coordinator's, re-crawl schedule included). */
        ingest_rows_per_s_per_consumer: CostSchema,
        ingest_cpu_us_per_row: CostSchema,
        /** ClickHouse bytes on disk per fetch row (with its views' rows) and per page row. */
        clickhouse_bytes_per_fetch_row: CostSchema,
        clickhouse_bytes_per_page_row: CostSchema,
        /** WARC bytes per page besides the compressed body: headers and the request record. */
        warc_record_overhead_bytes: CostSchema,
      })
      .strict(),
  })
  .strict()
  .superRefine((block, ctx) => {
    for (const [name, cost] of Object.entries(block.costs)) {
      const problem = costProblem(cost, block.lines);
      if (problem) ctx.addIssue({ code: 'custom', path: ['costs', name], message: problem });
    }
  });

export type UnitCosts = z.output<typeof UnitCostsSchema>;
export type UnitCostName = keyof UnitCosts['costs'];

/** The block's JSON text: the first ```json fence after {@link UNIT_COSTS_HEADING}. */
export function extractUnitCostsBlock(markdown: string): string {
  const at = markdown.indexOf(`\n${UNIT_COSTS_HEADING}\n`);
  if (at < 0) throw new UnitCostsError(`docs/BENCHMARKS.md has no heading "${UNIT_COSTS_HEADING}"`);
  const rest = markdown.slice(at + UNIT_COSTS_HEADING.length + 2);
  const fence = /^```json\n([\s\S]*?)^```$/m.exec(rest);
  const nextHeading = rest.search(/^## /m);
  if (!fence || (nextHeading >= 0 && fence.index > nextHeading)) {
    throw new UnitCostsError(
      `no \`\`\`json block under "${UNIT_COSTS_HEADING}" in docs/BENCHMARKS.md`,
    );
  }
  return fence[1] ?? '';
}

/** Parses and checks the block in `markdown` (the text of docs/BENCHMARKS.md). */
export function parseUnitCosts(markdown: string): UnitCosts {
  const text = extractUnitCostsBlock(markdown);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UnitCostsError(
      `the per-unit costs block in docs/BENCHMARKS.md is not JSON: ${(err as Error).message}`,
    );
  }
  const parsed = UnitCostsSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `  ${i.path.join('.') || '(block)'}: ${i.message}`,
    );
    throw new UnitCostsError(
      `the per-unit costs block in docs/BENCHMARKS.md is malformed:\n${issues.join('\n')}`,
    );
  }
  return parsed.data;
}

/** The values alone, by name. */
export function costValues(costs: UnitCosts): Record<UnitCostName, number> {
  const out = {} as Record<UnitCostName, number>;
  for (const [name, c] of Object.entries(costs.costs)) out[name as UnitCostName] = c.value;
  return out;
}
