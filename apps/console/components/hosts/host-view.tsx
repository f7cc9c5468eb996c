'use client';

import type { ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterOutputs } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { BlockPatternsEditor } from './block-patterns-editor';
import { FetchTable } from './fetch-table';
import { HostAudit } from './host-audit';
import { HostStatus } from './host-status';
import { PolicyEditor } from './policy-editor';
import { RobotsView } from './robots-view';

const POLL_MS = 3_000;

/** A host's page below its title: its state, policy, block patterns, robots.txt, fetches and audit. */
export function HostView(props: {
  host: string;
  initial?: {
    detail: Settled<RouterOutputs['hosts']['get']>;
    patterns: Settled<RouterOutputs['hosts']['blockPatterns']>;
  };
}): ReactNode {
  const { host } = props;
  const detail = useQuery(
    api.hosts.get,
    { host },
    { pollMs: POLL_MS, initial: props.initial?.detail },
  );
  const d = detail.data;
  return (
    <>
      {detail.loading && <Loading what="the host" />}
      {detail.error && (
        <ErrorBox
          title={
            detail.error.code === 'NOT_FOUND'
              ? `${host} is not known to the crawl`
              : 'Cannot load the host'
          }
          error={detail.error}
        />
      )}
      {d && (
        <div className="stack">
          <HostStatus host={d} />
          <PolicyEditor key={d.host} host={d} onSaved={detail.refresh} />
          <BlockPatternsEditor
            key={`patterns ${d.host}`}
            host={d.host}
            initial={props.initial?.patterns}
            onChanged={detail.refresh}
          />
          <RobotsView robots={d.robots} />
          <Panel title="Recent fetches" aside="last 50">
            <FetchTable
              caption="Recent fetches"
              rows={d.recent_fetches}
              empty="No fetches from this host yet."
            />
          </Panel>
          <Panel title="Recent errors">
            <FetchTable
              caption="Recent errors"
              rows={d.recent_errors}
              empty="No errors: every fetch was answered."
            />
          </Panel>
          <HostAudit host={d.host} audit={d.audit} />
        </div>
      )}
    </>
  );
}
