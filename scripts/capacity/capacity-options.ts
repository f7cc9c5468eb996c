// The command line of `npm run capacity`: the load to plan for, and the assumptions no bench
// measures (each with its default and why), validated by one strict zod schema.
import { parseArgs } from 'node:util';
import { CrawlerError } from '@crawler/domain/errors';
import { z } from 'zod';

/** Raised for a bad command line; the message is the usage. */
export class CapacityUsageError extends CrawlerError {
  readonly code = 'CAPACITY_USAGE';
  readonly retry = 'give_up';
  constructor(message: string) {
    super(message);
    this.name = 'CapacityUsageError';
  }
}

const count = z.coerce.number().int().positive();
const positive = z.coerce.number().positive();
const share = z.coerce.number().min(0).max(1);

/** The load to plan for. */
export const LoadSchema = z
  .object({
    /** Pages fetched a day, robots.txt not counted. */
    pagesPerDay: count,
    /** URLs waiting in the frontier's host queues. */
    urlsQueued: z.coerce.number().int().min(0),
    /** URLs the seen set knows (queued, fetched or refused); default: `urlsQueued`. */
    knownUrls: count.optional(),
    /** URLs on the re-crawl schedule; default: `knownUrls` (every capture is scheduled). */
    recrawlUrls: z.coerce.number().int().min(0).optional(),
    /** Hosts the queued URLs belong to; default: queued / the frontier bench's URLs a host. */
    hosts: count.optional(),
  })
  .strict();

/**
 * What no bench measures, as assumptions the user may override. Defaults: a real-web HTML page
 * is tens of kB decoded (the synthetic web's are 11–15 kB, too small to plan with), and gzip
 * level 3 takes real HTML to about a quarter (the synthetic web's repetitive text to 7%).
 */
export const AssumptionsSchema = z
  .object({
    /** Mean decoded body stored in a WARC response record, bytes. */
    avgPageBytes: positive.default(64_000),
    /** WARC gzip output over input for a body. */
    warcCompression: z.coerce.number().gt(0).max(1).default(0.25),
    /** Share of fetches that are re-crawls; default FRONTIER_RECRAWL_SHARE. */
    recrawlShare: share.optional(),
    /** Provisioned over average: redundancy, uneven shards, peaks (agents, cores, RAM). */
    headroom: z.coerce.number().min(1).max(100).default(1.5),
    /** Mean seconds between two requests to one host; default CRAWLER_DEFAULT_GAP_MS. */
    hostIntervalS: positive.optional(),
  })
  .strict();

export type CapacityLoad = z.output<typeof LoadSchema>;
export type CapacityAssumptions = z.output<typeof AssumptionsSchema>;

export const CAPACITY_USAGE = `usage: npm run capacity -- --pages-per-day N --urls-queued N [--known-urls N]
       [--recrawl-urls N] [--hosts N] [--avg-page-bytes N] [--warc-compression R]
       [--recrawl-share S] [--headroom F] [--host-interval-s S]`;

const FLAGS = {
  'pages-per-day': 'pagesPerDay',
  'urls-queued': 'urlsQueued',
  'known-urls': 'knownUrls',
  'recrawl-urls': 'recrawlUrls',
  hosts: 'hosts',
  'avg-page-bytes': 'avgPageBytes',
  'warc-compression': 'warcCompression',
  'recrawl-share': 'recrawlShare',
  headroom: 'headroom',
  'host-interval-s': 'hostIntervalS',
} as const;

/** Parses `npm run capacity -- …` arguments (numbers may be written 1e9 or 1_000_000_000). */
export function parseCapacityArgs(args: string[]): {
  load: CapacityLoad;
  assumptions: CapacityAssumptions;
} {
  const options: Record<string, { type: 'string' }> = {};
  for (const flag of Object.keys(FLAGS)) options[flag] = { type: 'string' };
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args, options, strict: true }).values;
  } catch (err) {
    throw new CapacityUsageError(`${(err as Error).message}\n${CAPACITY_USAGE}`);
  }
  const named: Record<string, string> = {};
  for (const [flag, key] of Object.entries(FLAGS)) {
    const v = values[flag];
    if (typeof v === 'string') named[key] = v.replaceAll('_', '');
  }
  const { pagesPerDay, urlsQueued, knownUrls, recrawlUrls, hosts, ...rest } = named;
  if (pagesPerDay === undefined || urlsQueued === undefined) {
    throw new CapacityUsageError(
      `--pages-per-day and --urls-queued are required\n${CAPACITY_USAGE}`,
    );
  }
  const load = LoadSchema.safeParse({ pagesPerDay, urlsQueued, knownUrls, recrawlUrls, hosts });
  const assumptions = AssumptionsSchema.safeParse(rest);
  const issues = [load, assumptions].flatMap((r) =>
    r.success ? [] : r.error.issues.map((i) => `--${flagOf(String(i.path[0]))}: ${i.message}`),
  );
  if (!load.success || !assumptions.success) {
    throw new CapacityUsageError(`${issues.join('\n')}\n${CAPACITY_USAGE}`);
  }
  return { load: load.data, assumptions: assumptions.data };
}

function flagOf(key: string): string {
  return Object.entries(FLAGS).find(([, k]) => k === key)?.[0] ?? key;
}
