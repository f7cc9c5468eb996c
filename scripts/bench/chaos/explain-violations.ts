import type { RequestLogEntry, Violation } from '@crawler/synthetic-web';
import { normalized } from './account-urls';
import type { FetchRowLite } from './warc-check';

/** The agent whose fetch row of `url` is nearest in time to `atMs`, or '?'. */
function agentOf(rows: readonly FetchRowLite[], url: string, atMs: number): string {
  const u = normalized(url);
  let best: FetchRowLite | undefined;
  for (const r of rows)
    if (r.url === u && (!best || Math.abs(r.at_ms - atMs) < Math.abs(best.at_ms - atMs))) best = r;
  return best ? `${best.agent_id}${best.error_code ? `/${best.error_code}` : ''}` : '?';
}

/**
 * For the first gap violations: the two requests (times from the run's start, status, which
 * agent made each, from the fetch rows), so a reader tells a lease hand-over from a pacing slip.
 */
export function explainGaps(
  log: readonly RequestLogEntry[],
  rows: readonly FetchRowLite[],
  violations: readonly Violation[],
  t0Ms: number,
  max = 10,
): string[] {
  const out: string[] = [];
  const s = (ms: number): string => `${((ms - t0Ms) / 1000).toFixed(3)} s`;
  for (const v of violations.filter((x) => x.kind === 'gap').slice(0, max)) {
    const url = v.detail.split(' ')[0] ?? '';
    const onHost = log.filter((e) => e.host === v.host).sort((a, b) => a.startMs - b.startMs);
    const i = onHost.findIndex((e) => e.url === url);
    const prev = onHost[i - 1];
    const next = onHost[i];
    if (!prev || !next) continue;
    out.push(
      `gap ${v.host}: ${prev.target} ${prev.status}${prev.aborted ? ' aborted' : ''} ` +
        `${s(prev.startMs)}–${s(prev.endMs)} by ${agentOf(rows, prev.url, prev.startMs)}, then ` +
        `${next.target} at ${s(next.startMs)} by ${agentOf(rows, next.url, next.startMs)}`,
    );
  }
  return out;
}

/**
 * For the first duplicate fetches: every request of the URL (time from the run's start, status,
 * the agent whose fetch row is nearest, or "no row"), so a reader tells a kill's repeat (first
 * request by the killed agent, no row or no mark) from a repeat no fault explains.
 */
export function explainDuplicates(
  log: readonly RequestLogEntry[],
  rows: readonly FetchRowLite[],
  violations: readonly Violation[],
  t0Ms: number,
  max = 10,
): string[] {
  const s = (ms: number): string => `${((ms - t0Ms) / 1000).toFixed(3)} s`;
  return violations
    .filter((x) => x.kind === 'duplicate')
    .slice(0, max)
    .map((v) => {
      const url = v.detail.split(' ')[0] ?? '';
      const requests = log
        .filter((e) => e.url === url)
        .sort((a, b) => a.startMs - b.startMs)
        .map((e) => {
          // A row within 5 s of the request is its own (a kill's repeat comes a lease TTL later).
          const near = rows.some(
            (r) => r.url === normalized(url) && Math.abs(r.at_ms - e.startMs) < 5_000,
          );
          const by = near ? agentOf(rows, e.url, e.startMs) : 'no row';
          return `${e.status}${e.aborted ? ' aborted' : ''} at ${s(e.startMs)} by ${by}`;
        });
      return `duplicate ${v.host}: ${url}: ${requests.join('; ')}`;
    });
}
