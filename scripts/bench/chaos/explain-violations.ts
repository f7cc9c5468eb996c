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
