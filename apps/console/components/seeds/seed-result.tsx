import type { ReactNode } from 'react';
import type { SeedsResult } from '../../lib/types/seeds';

const REASONS: Record<string, string> = {};

/** What the coordinator accepted, and each refused entry with its reason. */
export function SeedResult({ result, sent }: { result: SeedsResult; sent: number }): ReactNode {
  return (
    <section className="panel" aria-labelledby="seed-result-title" role="status">
      <h2 id="seed-result-title" className="panel__title">
        {result.valid} of {sent} accepted
      </h2>
      <p className="muted">
        {result.added} new to the seed list, {result.enqueued} new to the frontier
        {result.valid > result.enqueued ? ' (the rest were already known or queued)' : ''}.
        {result.sitemaps
          ? ` ${result.sitemaps} ${result.sitemaps === 1 ? 'is a sitemap' : 'are sitemaps'}: the pages listed are queued once fetched.`
          : ''}
      </p>
      {result.rejected.length > 0 && (
        <table className="table">
          <caption>Refused ({result.rejected.length})</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Entry</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {result.rejected.map((r) => (
              <tr key={`${r.index}-${r.url}`}>
                <td>{r.index + 1}</td>
                <td className="mono break">{r.url}</td>
                <td>
                  <strong>{REASONS[r.reason] ?? r.reason}</strong>
                  {r.detail ? `: ${r.detail}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
