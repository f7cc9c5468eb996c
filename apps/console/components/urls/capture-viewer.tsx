'use client';

import type { ReactNode } from 'react';
import type { UrlFetch } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { formatBytes } from '../../lib/format';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';

function headerLines(h: Record<string, string>): string {
  return Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** The raw response of one capture, read back from its WARC file by the coordinator. */
export function CaptureViewer({ capture }: { capture: UrlFetch }): ReactNode {
  const rec = useQuery(api.captures.read, {
    key: capture.warc_key,
    offset: capture.warc_offset,
    length: capture.warc_length,
  });
  if (rec.loading) return <Loading what="the WARC record" />;
  if (rec.error) return <ErrorBox title="Cannot read the capture" error={rec.error} />;
  const r = rec.data;
  if (!r) return null;
  return (
    <div className="capture" data-testid="capture-raw">
      <p>
        HTTP <strong>{r.http_status ?? '—'}</strong> · {formatBytes(r.body_bytes)} ·{' '}
        {r.digests_ok ? (
          <span className="badge badge--ok">digests verified</span>
        ) : (
          <span className="badge badge--danger">digest mismatch</span>
        )}{' '}
        · <code>{capture.warc_key}</code> @ {capture.warc_offset}
      </p>
      <h3>WARC headers</h3>
      <pre className="code-block" tabIndex={0}>
        {headerLines(r.warc_headers)}
      </pre>
      <h3>HTTP headers</h3>
      <pre className="code-block" tabIndex={0}>
        {headerLines(r.http_headers)}
      </pre>
      <h3>Body{r.truncated ? ' (first 256 KiB)' : ''}</h3>
      <pre className="code-block code-block--tall" tabIndex={0} aria-label="Raw response body">
        {r.body}
      </pre>
    </div>
  );
}
