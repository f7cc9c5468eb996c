import type { RequestLogEntry, Violation } from '@crawler/synthetic-web';
import { normalized } from './account-urls';
import type { FetchRowLite } from './warc-check';

/**
 * The agent whose fetch row of `url` is nearest in time to `atMs` (within `withinMs`), or
 * `none`.
 */
function agentOf(
  rows: readonly FetchRowLite[],
  url: string,
  atMs: number,
  withinMs = Infinity,
  none = '?',
): string {
  const u = normalized(url);
  let best: FetchRowLite | undefined;
  for (const r of rows)
    if (r.url === u && (!best || Math.abs(r.at_ms - atMs) < Math.abs(best.at_ms - atMs))) best = r;
  if (!best || Math.abs(best.at_ms - atMs) >= withinMs) return none;
  return `${best.agent_id}${best.error_code ? `/${best.error_code}` : ''}`;
}

/**
 * Explains the first violations of two kinds, with times from the run's start and the agent of
 * each request (from the fetch rows):
 * - a gap: the two requests, so a reader tells a lease hand-over from a pacing slip;
 * - a duplicate fetch: every request of the URL, its agent or "no row" (a row within 5 s of a
 *   request is its own; a kill's repeat comes a lease TTL later), so a reader tells a kill's
 *   repeat (first request by the killed agent, no row) from a repeat no fault explains.
 */
export function explainViolations(
  log: readonly RequestLogEntry[],
  rows: readonly FetchRowLite[],
  violations: readonly Violation[],
  t0Ms: number,
  max = { gap: 10, duplicate: 40 },
): string[] {
  const s = (ms: number): string => `${((ms - t0Ms) / 1000).toFixed(3)} s`;
  const urlOf = (v: Violation): string => v.detail.split(' ')[0] ?? '';
  const out: string[] = [];
  for (const v of violations.filter((x) => x.kind === 'gap').slice(0, max.gap)) {
    const url = urlOf(v);
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
  for (const v of violations.filter((x) => x.kind === 'duplicate').slice(0, max.duplicate)) {
    const url = urlOf(v);
    const requests = log
      .filter((e) => e.url === url)
      .sort((a, b) => a.startMs - b.startMs)
      .map(
        (e) =>
          `${e.status}${e.aborted ? ' aborted' : ''} at ${s(e.startMs)} by ` +
          agentOf(rows, e.url, e.startMs, 5_000, 'no row'),
      );
    out.push(`duplicate ${v.host}: ${url}: ${requests.join('; ')}`);
  }
  return out;
}
