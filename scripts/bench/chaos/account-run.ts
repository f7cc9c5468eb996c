import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  readRequestLog,
  scoreCrawl,
  type Manifest,
  type RequestLogEntry,
  type ScoreReport,
} from '@crawler/synthetic-web';
import {
  accountUrls,
  crawlerFetchedUrls,
  discoveredUrls,
  inspectUrls,
  unarchivedRequests,
  webSettledUrls,
  type UrlAccount,
} from './account-urls';
import type { ChaosOptions } from './chaos-options';
import type { ChaosStack } from './chaos-stack';
import { explainViolations } from './explain-violations';
import { snapshotFrontier } from './frontier-snapshot';
import { checkWarcRecords, readStoredRows, type WarcCheck } from './warc-check';

/** What the end state says, once the agents have drained and the telemetry is stored. */
export interface RunAccount {
  requestLog: RequestLogEntry[];
  urls: UrlAccount;
  warc: WarcCheck;
  score: ScoreReport;
  redisUsedMemoryMb: number;
  /** The url_fp of every page in ClickHouse `pages`. */
  pageFps: Set<string>;
}

/**
 * Accounts for the run after the drain: the web's request log (the web is stopped here), the
 * frontier read from Redis, the URL inspector (while the coordinator runs), then — with the
 * coordinator stopped — its ClickHouse fetch rows and pages, every WARC record the rows point
 * at, and the scorer. `t0Epoch` (the seeding, epoch ms) only times the log lines.
 */
export async function accountRun(
  s: ChaosStack,
  o: ChaosOptions,
  t0Epoch: number,
  log: (line: string) => void,
  phase: (what: string) => void,
): Promise<RunAccount> {
  await s.web.stop();
  const requestLog = await readRequestLog(s.web.logPath);
  // URLs: what the web showed, against the frontier and the URL inspector (while the
  // coordinator runs), then against ClickHouse (after it stopped).
  const frontier = await snapshotFrontier(s.redis, s.frontier, s.prefix);
  const shown = discoveredUrls(requestLog);
  const settled = webSettledUrls(requestLog);
  const ask = [...shown.keys()].filter(
    (u) => !settled.has(u) && !frontier.queued.has(u) && !frontier.dead.has(u),
  );
  log(
    `${shown.size} URLs shown to the crawler; ${frontier.queued.size} queued (${frontier.inLeases} in ` +
      `unreclaimed leases), ${frontier.dead.size} dead letters; asking the inspector about ${ask.length}`,
  );
  const verdicts = await inspectUrls(s.apiUrl, s.adminToken, ask);
  const redisUsedMemoryMb = await s.redisProcess.usedMemoryMb();
  const stopped = await s.coordinator.stop();
  log(
    `coordinator stopped in ${(stopped.ms / 1000).toFixed(1)} s${stopped.clean ? '' : ' (killed)'}`,
  );
  phase('inspector asked, coordinator stopped');
  const { fetches: rows, pageFps } = await readStoredRows(join(s.coordinatorDataDir, 'clickhouse'));
  const warc = await checkWarcRecords(s.warcStore, rows);
  phase(`${rows.length} fetch rows read, WARC records checked`);
  const fetched = crawlerFetchedUrls(rows);
  const discovered = discoveredUrls(requestLog, fetched);
  const account = accountUrls(discovered, fetched, frontier, verdicts);
  log(
    `URLs: ${account.fetched} fetched, ${account.queued} queued, ${account.deadLettered} dead, ` +
      `refused ${JSON.stringify(account.refused)}, ${account.lost.length} lost`,
  );
  const rowsOf = (url: string): string =>
    rows
      .filter((r) => r.url === url)
      .map(
        (r) =>
          `${r.status}${r.error_code ? `/${r.error_code}` : ''} by ${r.agent_id} at ${((r.at_ms - t0Epoch) / 1000).toFixed(1)} s`,
      )
      .join(', ') || 'no fetch row';
  for (const l of account.lost.slice(0, 20))
    log(`lost: ${l.url} (${l.reason}); linked from ${l.from} [${rowsOf(l.from)}]`);
  log(`WARC records: ${warc.checked} checked, ${warc.missing} missing`);
  for (const l of warc.examples) log(`missing record: ${l}`);

  const manifest = JSON.parse(readFileSync(s.web.manifest, 'utf8')) as Manifest;
  const score = scoreCrawl({
    log: requestLog,
    manifest,
    productToken: 'crawlerbot',
    minGapMs: o.gapMs,
    unsettled: unarchivedRequests(requestLog, rows),
  });
  // Duplicates are listed below with all their requests (explainViolations).
  for (const v of score.violations.filter((x) => x.kind !== 'duplicate').slice(0, 15))
    log(`violation ${v.kind} ${v.host}: ${v.detail}`);
  for (const line of explainViolations(requestLog, rows, score.violations, t0Epoch)) log(line);
  return { requestLog, urls: account, warc, score, redisUsedMemoryMb, pageFps };
}
