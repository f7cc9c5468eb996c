'use client';

import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import { useApi } from '../../lib/client/use-api';
import type { HostDetail } from '../../lib/types/hosts';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { PageHead } from '../ui/page-head';
import { Panel } from '../ui/panel';
import { BlockPatternsEditor } from './block-patterns-editor';
import { FetchTable } from './fetch-table';
import { HostAudit } from './host-audit';
import { HostStatus } from './host-status';
import { PolicyEditor } from './policy-editor';
import { RobotsView } from './robots-view';

const POLL_MS = 3_000;

export function HostView({ host }: { host: string }): ReactNode {
  const detail = useApi<HostDetail>(`/hosts/${encodeURIComponent(host)}`, POLL_MS);
  const [version, setVersion] = useState(0);
  const d = detail.data;
  return (
    <>
      <PageHead title={host}>
        <Link href="/hosts">← All hosts</Link>
      </PageHead>
      {detail.loading && <Loading what="the host" />}
      {detail.error && (
        <ErrorBox
          title={
            detail.error.status === 404
              ? `${host} is not known to the crawl`
              : 'Cannot load the host'
          }
          error={detail.error}
        />
      )}
      {d && (
        <div className="stack">
          <HostStatus host={d} />
          <PolicyEditor
            key={d.host}
            host={d}
            onSaved={() => {
              detail.refresh();
              setVersion((v) => v + 1);
            }}
          />
          <BlockPatternsEditor
            key={`patterns ${d.host}`}
            host={d.host}
            onChanged={() => setVersion((v) => v + 1)}
          />
          <RobotsView robots={d.robots} />
          <Panel title="Recent fetches" aside="last 50">
            {d.recent_fetches === undefined ? (
              <p className="muted">This coordinator does not report a host’s fetches yet.</p>
            ) : (
              <FetchTable
                caption="Recent fetches"
                rows={d.recent_fetches}
                empty="No fetches from this host yet."
              />
            )}
          </Panel>
          <Panel title="Recent errors">
            {d.recent_errors === undefined ? (
              <p className="muted">This coordinator does not report a host’s errors yet.</p>
            ) : (
              <FetchTable
                caption="Recent errors"
                rows={d.recent_errors}
                empty="No errors: every fetch was answered."
              />
            )}
          </Panel>
          <HostAudit host={d.host} embedded={d.audit} version={version} />
        </div>
      )}
    </>
  );
}
