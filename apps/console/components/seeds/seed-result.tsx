import type { ReactNode } from 'react';
import type { SeedsResult } from '../../lib/api/router-types';
import { DataTable } from '../ui/data-table';

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
        <DataTable
          caption={`Refused (${result.rejected.length})`}
          showCaption
          rows={result.rejected}
          rowKey={(r) => `${r.index}-${r.url}`}
          columns={[
            { header: '#', cell: (r) => r.index + 1 },
            { header: 'Entry', className: 'mono break', cell: (r) => r.url },
            {
              header: 'Why',
              cell: (r) => (
                <>
                  <strong>{r.reason}</strong>
                  {r.detail ? `: ${r.detail}` : ''}
                </>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}
