import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import { CompiledBlockRules } from '@crawler/domain/traps';
import { AppError } from '../api/app-error';
import { auditEntry, SYSTEM, type Actor } from '../audit/audit-entry';
import type { Services } from '../api/services';
import type { Store } from '../db/store';
import { buildBlockRuleSet } from '../hosts/publish-block-rules';
import { ensureSpillDataset } from '../frontier-spill/spill-dataset';
import { RebuildLock } from './rebuild-lock';
import { readGenerationMarker, writeGenerationMarker } from './generation-marker';
import type { FrontierRebuildOutput, FrontierRebuildStatus } from './rebuild-frontier.types';
import {
  markKnownUrlsSeen,
  requeueFailedAndRedirects,
  restoreOutlinks,
} from './restore-known-urls';
import { restoreRecrawlSchedule } from './restore-recrawl';
import { enqueuePendingSeeds, restoreSeeds, syncPoliciesWithPostgres } from './sync-with-postgres';

/** What a rebuild reads and writes: the coordinator's services. */
export type RebuildDeps = Pick<
  Services,
  'config' | 'log' | 'redis' | 'frontier' | 'analytics' | 'store'
>;

/** The latest rebuild of each frontier in this process (one runs at a time). */
const latest = new WeakMap<Frontier, FrontierRebuildStatus>();

/** The latest rebuild of this frontier in this process: running, done (its report) or failed. */
export function frontierRebuildStatus(frontier: Frontier): FrontierRebuildStatus {
  return (
    latest.get(frontier) ?? {
      status: 'idle',
      reason: null,
      started_at: null,
      report: null,
      error: null,
    }
  );
}

export interface RebuildOptions {
  /** Stops the rebuild between pages (the coordinator stopping); the marker is then not written. */
  signal?: AbortSignal;
  /** Host policy rows already pushed by {@link syncPoliciesWithPostgres} (skip doing it again). */
  policiesPushed?: number;
}

/**
 * Re-creates the frontier from the stores that keep it: Postgres (settings, host policies, block
 * rules, every seed) and ClickHouse (every known URL into the seen set, the re-crawl schedule
 * replayed from the captures, transient failures, unfetched redirect targets and the links of
 * parsed pages back in their queues), then writes the generation marker. Known URLs are marked
 * seen before anything is queued, so none is fetched again as new, even by agents working during
 * the rebuild.
 *
 * Idempotent, and safe on a live frontier: the seen set and the enqueue script dedupe, and the
 * schedule keeps what it has. docs/ARCHITECTURE.md ("Redis as a store") says what a rebuild
 * cannot recover.
 * One rebuild runs at a time across coordinators (RebuildLock, in Postgres).
 * @throws AppError `CONFLICT` while another rebuild of this frontier runs, here or on another
 *   coordinator.
 */
export function rebuildFrontier(
  deps: RebuildDeps,
  reason: FrontierRebuildOutput['reason'],
  opts: RebuildOptions = {},
): Promise<FrontierRebuildOutput> {
  if (latest.get(deps.frontier)?.status === 'running')
    return Promise.reject(
      new AppError('CONFLICT', 'a frontier rebuild is already running; wait for it to end'),
    );
  const status: FrontierRebuildStatus = {
    status: 'running',
    reason,
    started_at: new Date().toISOString(),
    report: null,
    error: null,
  };
  const run = runRebuild(deps, reason, opts).then(
    (report) => {
      Object.assign(status, { status: 'done', report });
      return report;
    },
    (err: unknown) => {
      Object.assign(status, { status: 'failed', error: errorText(err) });
      throw err;
    },
  );
  latest.set(deps.frontier, status);
  return run;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function runRebuild(
  deps: RebuildDeps,
  reason: FrontierRebuildOutput['reason'],
  opts: RebuildOptions,
): Promise<FrontierRebuildOutput> {
  const { config, log } = deps;
  const taken = await RebuildLock.take(
    config.DATABASE_URL,
    deps.frontier.keys.prefix,
    `coordinator-${config.coordinatorId}`,
    reason,
    log,
  );
  if ('held' in taken)
    throw new AppError(
      'CONFLICT',
      `a frontier rebuild is already running (${taken.held.id}, on ${taken.held.owner} since ${taken.held.startedAt}); wait for it to end`,
    );
  const { lock } = taken;
  log.info({ reason, rebuild: lock.run.id }, 'frontier rebuild: starting');
  try {
    return await rebuildUnderLock(deps, reason, opts, lock);
  } finally {
    await lock.release();
  }
}

async function rebuildUnderLock(
  deps: RebuildDeps,
  reason: FrontierRebuildOutput['reason'],
  { signal, policiesPushed }: RebuildOptions,
  lock: RebuildLock,
): Promise<FrontierRebuildOutput> {
  const { config, store, frontier, analytics, log } = deps;
  const started = new Date();
  const before = await readGenerationMarker(deps.redis, frontier.keys);
  let phaseAt = performance.now();
  /** Milliseconds since the previous phase ended. */
  const took = () => Math.round(-phaseAt + (phaseAt = performance.now()));

  // Redis was lost (no spill dataset): its spilled URLs' counters went with it (the rebuild
  // queues them again), so the rows go and a new dataset is named before anything is queued.
  // A rebuild tried again after a failure finds the dataset it named: the rows spilled since
  // are this Redis's and stay. A manual rebuild (the marker is there) never clears.
  const spill = await ensureSpillDataset(config.DATABASE_URL, deps.redis, frontier, {
    clear: !before,
  });
  if (spill.named)
    log.info({ ...spill, rebuild: lock.run.id }, 'frontier rebuild: spill dataset named');
  const policies = policiesPushed ?? (await syncPoliciesWithPostgres(deps));
  const known = await markKnownUrlsSeen({ analytics, seen: frontier, signal });
  log.info({ ...known, ms: took() }, 'frontier rebuild: known URLs marked seen');
  const recrawl = await restoreRecrawlSchedule({
    redis: deps.redis,
    frontier,
    analytics,
    bounds: {
      minMs: config.RECRAWL_MIN_INTERVAL_MS,
      maxMs: config.RECRAWL_MAX_INTERVAL_MS,
      initialMs: config.RECRAWL_INITIAL_INTERVAL_MS,
    },
    signal,
  });
  log.info({ ...recrawl, ms: took() }, 'frontier rebuild: re-crawl schedule restored');
  const seeds = await restoreSeeds({ store, frontier, signal });
  log.info({ ...seeds, ms: took() }, 'frontier rebuild: seeds enqueued');
  const [policyRows, patterns, settings] = await Promise.all([
    store.policies.listAll(),
    store.blockPatterns.listAll(),
    store.settings.get(),
  ]);
  const blockRules = new CompiledBlockRules(buildBlockRuleSet(policyRows, patterns, started).rules);
  const failed = await requeueFailedAndRedirects({ analytics, frontier, blockRules, signal });
  log.info({ ...failed, ms: took() }, 'frontier rebuild: failed URLs and redirects enqueued');
  const links = await restoreOutlinks({
    analytics,
    frontier,
    blockRules,
    // As the agent applies them (pipeline/links-step.ts), with the crawl's max depth in effect.
    limits: {
      maxUrlLength: 2048,
      maxPathSegments: 16,
      maxDepth: settings?.maxDepth ?? config.CRAWLER_MAX_DEPTH,
      maxHops: config.CRAWLER_MAX_HOPS,
    },
    signal,
  });
  log.info({ ...links, ms: took() }, 'frontier rebuild: links of parsed pages enqueued');

  const enqueued = seeds.enqueued + failed.retried + failed.redirects + links.linksEnqueued;
  const finished = new Date();
  signal?.throwIfAborted();
  // The marker says this Redis holds everything: not so if it was emptied again meanwhile, or
  // if another rebuild took over a lapsed lease.
  if ((await deps.redis.get(frontier.keys.spillDataset())) !== spill.dataset)
    throw new Error('Redis was emptied during the frontier rebuild; it runs again');
  if (!lock.held) throw new Error('the frontier rebuild lost its lock to another rebuild');
  await writeGenerationMarker(deps.redis, frontier.keys, {
    // A manual rebuild fills the same Redis dataset; one after a loss starts a new one.
    createdAt: before?.createdAt ?? started.toISOString(),
    rebuiltFrom: {
      reason,
      at: finished.toISOString(),
      seeds: seeds.seeds,
      knownUrls: known.knownUrls,
      enqueued,
      scheduled: recrawl.scheduled,
    },
  });
  return {
    reason,
    started_at: started.toISOString(),
    took_ms: finished.getTime() - started.getTime(),
    seeds: seeds.seeds,
    seeds_enqueued: seeds.enqueued,
    policies,
    known_urls: known.knownUrls,
    newly_seen: known.newlySeen,
    retried: failed.retried,
    redirects_enqueued: failed.redirects,
    pages_read: links.pagesRead,
    links_enqueued: links.linksEnqueued,
    links_dropped: links.linksDropped,
    recrawl_rows: recrawl.rows,
    recrawl_scheduled: recrawl.scheduled,
    enqueued,
  };
}

/** What the coordinator did with the frontier at start (`Coordinator.frontierStartup`). */
export type StartupFrontier =
  | { action: 'synced' }
  | { action: 'initialised' }
  | { action: 'rebuilt'; report: FrontierRebuildOutput }
  | { action: 'rebuild_failed'; error: string };

/**
 * At coordinator start, before the API serves: brings the frontier in line with Postgres (as
 * every start does). With the generation marker present, that is all. Without it, Redis is new
 * or was emptied: when Postgres has seeds or ClickHouse knows URLs, the frontier is rebuilt from
 * them in the background (`done`; logged as a warning with what was restored, and audited) —
 * a large crawl takes minutes, and the API and agents work meanwhile; otherwise this is a new
 * installation, and it gets its marker. A rebuild that fails or is stopped leaves no marker, so
 * the next start runs it again.
 */
export async function startFrontierGeneration(
  deps: RebuildDeps,
  signal?: AbortSignal,
): Promise<{ done: Promise<StartupFrontier> }> {
  const { redis, frontier, store, log } = deps;
  const marker = await readGenerationMarker(redis, frontier.keys);
  const policies = await syncPoliciesWithPostgres(deps);
  if (marker) {
    // A frontier kept from before spill datasets were named: its rows are this Redis's.
    await nameSpillDataset(deps, { clear: false });
    await enqueuePendingSeeds(deps);
    return { done: Promise.resolve({ action: 'synced' }) };
  }
  const [seeds, known] = await Promise.all([store.seeds.count(), hasKnownUrls(deps.analytics)]);
  if (seeds === 0 && !known) {
    await nameSpillDataset(deps, { clear: true });
    await writeGenerationMarker(redis, frontier.keys, {
      createdAt: new Date().toISOString(),
      rebuiltFrom: null,
    });
    log.info('frontier initialised (a new Redis dataset: generation marker written)');
    return { done: Promise.resolve({ action: 'initialised' }) };
  }
  log.warn(
    { seeds, prefix: deps.config.REDIS_PREFIX },
    'the frontier has no generation marker while Postgres has seeds (or ClickHouse known URLs): Redis was emptied; rebuilding the frontier',
  );
  const done = rebuildFrontier(deps, 'marker_missing', { signal, policiesPushed: policies }).then(
    async (report): Promise<StartupFrontier> => {
      log.warn({ ...report }, `frontier rebuilt: ${report.enqueued} URLs queued again`);
      await recordRebuild(store, SYSTEM, report);
      return { action: 'rebuilt', report };
    },
    (err: unknown): StartupFrontier => {
      if (!signal?.aborted)
        log.error(
          { err },
          'frontier rebuild failed; it runs again at the next start, or run `crawler frontier rebuild`',
        );
      return { action: 'rebuild_failed', error: errorText(err) };
    },
  );
  return { done };
}

/**
 * Names the spill dataset when Redis has none, under the rebuild lock (a rebuild running
 * elsewhere names it itself: nothing is done then). The spill pump waits until it is named.
 */
async function nameSpillDataset(deps: RebuildDeps, opts: { clear: boolean }): Promise<void> {
  const { config, redis, frontier, log } = deps;
  if (await redis.get(frontier.keys.spillDataset())) return;
  const taken = await RebuildLock.take(
    config.DATABASE_URL,
    frontier.keys.prefix,
    `coordinator-${config.coordinatorId}`,
    'spill_dataset',
    log,
  );
  if ('held' in taken) return;
  try {
    const spill = await ensureSpillDataset(config.DATABASE_URL, redis, frontier, opts);
    if (spill.named) log.info({ ...spill }, 'frontier spill dataset named');
  } finally {
    await taken.lock.release();
  }
}

/** Records a rebuild in the audit log, after it (a Redis change, not a Postgres one). */
export async function recordRebuild(store: Store, actor: Actor, report: FrontierRebuildOutput) {
  await store.audit.record(auditEntry(actor, 'frontier.rebuild', null, null, report));
}

async function hasKnownUrls(analytics: AnalyticsStore): Promise<boolean> {
  const rows = await analytics.queryJson<{ url_fp: string }>('SELECT url_fp FROM urls LIMIT 1');
  return rows.length > 0;
}
