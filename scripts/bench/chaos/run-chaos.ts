import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { telemetryStreamKey } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import { LogTail, targetPath } from '../measure-child';
import { accountRun } from './account-run';
import type { ChaosOptions } from './chaos-options';
import type { ChaosResult } from './chaos-result';
import { seedWeb, startChaosStack, type ChaosStack } from './chaos-stack';
import { runFaults, startedAfterRead } from './fault-timeline';
import { FeedAudit, feedReader } from './feed-audit';
import { runFeedOutage } from './feed-outage';
import { StallMonitor } from './stall-monitor';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** The agent and coordinator bundles, rebuilt when their sources changed (as `npm start` does). */
function buildProcesses(): void {
  const r = spawnSync(
    process.execPath,
    ['scripts/build.mjs', '--if-stale', '--quiet', 'agent', 'coordinator'],
    { cwd: ROOT, stdio: ['ignore', 2, 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`scripts/build.mjs failed (exit ${r.status})`);
}

/** Waits until the coordinator has stored every telemetry row (it deletes each once stored). */
async function waitTelemetryStored(
  redis: RedisClient,
  prefix: string,
  ms: number,
): Promise<number> {
  const until = performance.now() + ms;
  let left = 0;
  while (performance.now() < until) {
    left = await redis.xlen(telemetryStreamKey(prefix));
    if (left === 0) return 0;
    await sleep(250);
  }
  return left;
}

/** Waits until the coordinator's `ingest` group has stored every page of the feed. */
async function waitPagesIngested(
  readFeed: ReturnType<typeof feedReader>,
  ms: number,
): Promise<number | null> {
  const until = performance.now() + ms;
  let left: number | null = null;
  while (performance.now() < until) {
    const p = await readFeed();
    left = p ? (p.groups.find((g) => g.group === 'ingest')?.unreadPages ?? null) : null;
    if (left === 0) return 0;
    await sleep(250);
  }
  return left;
}

/**
 * Issue 13's chaos scenario: a crawl of the synthetic web by agent processes and a coordinator
 * process, with agents, the coordinator and Redis killed and a WARC folder filled up on a
 * schedule; then the agents drain, and every URL, fetch and WARC record is accounted for.
 * Before the faults, issue 22's feed outage (the coordinator frozen while the crawl goes on);
 * the bench's own consumer group reads the feed throughout, and every page it read must be in
 * ClickHouse `pages` at the end. Progress and details go to `log`; the figures are returned.
 */
export async function runChaos(
  o: ChaosOptions,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  /** Keep the run's folder (web log, ClickHouse, agents' folders) for a post-mortem. */
  keepDir = false,
): Promise<ChaosResult> {
  const load1 = loadavg()[0] ?? 0;
  const started = performance.now();
  const phase = (what: string): void =>
    log(`— ${what} (${((performance.now() - started) / 1000).toFixed(1)} s since start)`);
  buildProcesses();
  const dir = mkdtempSync(join(tmpdir(), 'bench-chaos-'));
  let stack: ChaosStack | null = null;
  let audit: FeedAudit | null = null;
  // Ctrl-C: the children get it too (same process group); the mount and the database are ours.
  const interrupted = (): void => {
    log('interrupted: tearing down');
    void (stack?.teardown() ?? Promise.resolve()).finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  try {
    log(
      `chaos: ${o.hosts} hosts, ${o.agents} agents, ${o.seconds} s, gap ${o.gapMs} ms; ` +
        `load average ${load1.toFixed(2)}; in ${dir}`,
    );
    stack = await startChaosStack(ROOT, o, dir, log);
    const s = stack;
    phase('web, Redis, S3, Postgres, coordinator and agents up');
    const stalls = new StallMonitor(s.redis, s.frontier, s.prefix, o.shards);
    const readFeed = feedReader(s.redis, s.prefix, o.feedMaxBytes);
    audit = await FeedAudit.start(s.redisProcess.url, s.prefix);
    const seeds = readFileSync(s.web.seeds, 'utf8').split('\n').filter(Boolean);
    await seedWeb(s, seeds);
    // Hosts held back by a full feed are not stalls: the window, and its sampling, come after.
    const outage = await runFeedOutage(o, s, readFeed, log);
    if (outage) phase('feed outage over');
    const t0 = performance.now();
    const t0Epoch = Date.now();
    stalls.start();
    const tail = new LogTail(s.web.logPath);
    let pages = 0;
    const progress = setInterval(() => {
      for (const s2 of s.slots) s2.sampleRss();
      for (const l of tail.read()) if (!l.includes('"target":"/robots.txt"')) pages++;
      if (Math.round((performance.now() - t0) / 1000) % 10 === 0)
        log(
          `[${((performance.now() - t0) / 1000).toFixed(0)}s] ${pages} pages; ` +
            `${stalls.stalledNow} hosts stalled now, longest stall ${(stalls.longest.ms / 1000).toFixed(0)} s`,
        );
    }, 1000);
    const faults = await runFaults(o, s, stalls, t0, log);
    stalls.stop();
    clearInterval(progress);
    tail.close();
    phase('crawl window over');

    // Drain: agents finish what they hold and ship their WARC files; the coordinator stores
    // every telemetry row they sent.
    const drains = await Promise.all(s.slots.map((slot) => slot.stop(90_000)));
    log(
      `agents drained in ${drains.map((d) => `${(d.ms / 1000).toFixed(1)} s${d.clean ? '' : ' (killed)'}`).join(', ')}`,
    );
    // Entries a killed coordinator had read but not stored wait for their consumer to be
    // declared gone (StreamGroupReader's claim after 60 s idle), so this can take a minute.
    const waitStart = performance.now();
    const unstored = await waitTelemetryStored(s.redis, s.prefix, 120_000);
    log(
      `telemetry ${unstored > 0 ? `NOT all stored: ${unstored} entries left` : 'all stored'} after ` +
        `${((performance.now() - waitStart) / 1000).toFixed(1)} s`,
    );
    const unfed = await waitPagesIngested(readFeed, 120_000);
    const audited = await audit.finish(60_000);
    const feedEnd = await readFeed();
    log(
      `feed: ${unfed === 0 ? 'every page stored by the ingest' : `ingest ${unfed ?? '?'} pages behind`}; ` +
        `the audit group read ${audit.fps.size} URLs${audited ? '' : ' (NOT caught up)'}` +
        ` (${audit.failedReads} failed reads); dropped ${feedEnd?.droppedPages ?? '?'}`,
    );
    phase('agents drained, telemetry and pages stored');

    const a = await accountRun(s, o, t0Epoch, log, phase);
    const missing = [...audit.fps].filter((fp) => !a.pageFps.has(fp));
    log(`pages: ${a.pageFps.size} URLs in ClickHouse pages, ${missing.length} fed but missing`);
    for (const fp of missing.slice(0, 10)) log(`missing page: url_fp ${fp}`);
    const longest = stalls.longest;
    if (longest.ms > 0)
      log(
        `longest stall: ${longest.host}, ${(longest.ms / 1000).toFixed(1)} s from ` +
          `${((longest.sinceMs - t0Epoch) / 1000).toFixed(1)} s into the run ` +
          `(${stalls.samples} samples, ${stalls.failedSamples} failed)`,
      );
    // The gauge is read just before each kill: requests started in between were in flight too.
    const lateStarts = startedAfterRead(a.requestLog, faults.killWindows);
    log(
      `in flight at the kills: ${faults.inFlightAtKills} read from the agents' gauges, ` +
        `${lateStarts} requests started between a read and its kill`,
    );
    if (faults.inFlightUnread > 0)
      log(`${faults.inFlightUnread} killed agent(s) did not answer /metrics: counted 0 in flight`);
    return {
      bench: 'chaos',
      seconds: o.seconds,
      agent_kills: faults.agentKills,
      coordinator_kills: faults.coordinatorKills,
      redis_restarts: faults.redisRestarts,
      disk_faults: faults.diskFaults,
      pages: a.requestLog.filter((e) => targetPath(e.target) !== '/robots.txt').length,
      urls_lost: a.urls.lost.length,
      duplicate_fetches: a.score.duplicate_fetches,
      in_flight_at_kills: faults.inFlightAtKills + lateStarts,
      politeness_violations: a.score.politeness_violations,
      robots_violations: a.score.robots_violations,
      warc_records_missing: a.warc.missing,
      max_stall_s: round1(longest.ms / 1000),
      peak_agent_rss_mb: Math.round(Math.max(...s.slots.map((slot) => slot.peakRssMb))),
      redis_used_memory_mb: round1(a.redisUsedMemoryMb),
      hosts: o.hosts,
      gap_ms: o.gapMs,
      urls_discovered: a.urls.discovered,
      warc_records_checked: a.warc.checked,
      feed_outage_s: outage?.seconds ?? 0,
      feed_held_s: outage?.heldS ?? 0,
      feed_peak_unread_mb: round1((outage?.peakUnreadBytes ?? 0) / 1048576),
      feed_max_mb: round1(o.feedMaxBytes / 1048576),
      pages_fed: audit.fps.size,
      pages_missing: missing.length,
      // Unknown (Redis did not answer) counts as a miss, not as none.
      feed_pages_dropped: feedEnd?.droppedPages ?? -1,
      load_avg_1m: Math.round(load1 * 100) / 100,
    };
  } finally {
    process.off('SIGINT', interrupted);
    await audit?.finish(0);
    await stack?.teardown();
    if (keepDir) log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
