'use client';

import type { ReactNode } from 'react';
import { useApi } from '../../lib/client/use-api';
import { formatCount } from '../../lib/format';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

interface Shard {
  shard: number;
  hosts: number;
  queued_urls: number;
  ready_hosts: number;
  open_leases: number;
  dead_letters: number;
  node: string | null;
  node_since: string | null;
}

/** Logical frontier shards, their load and the Redis node that holds each. */
export function ShardMap(): ReactNode {
  const shards = useApi<{ items: Shard[] }>('/shards', 5_000);
  const max = Math.max(1, ...(shards.data?.items.map((s) => s.queued_urls) ?? [1]));
  return (
    <Panel title="Shard map" aside="hosts → shard by a stable hash">
      {shards.loading && <Loading what="shards" />}
      {shards.error && <ErrorBox title="Cannot load the shard map" error={shards.error} />}
      {shards.data && (
        <table className="table table--dense">
          <caption className="visually-hidden">Frontier shards</caption>
          <thead>
            <tr>
              <th scope="col">Shard</th>
              <th scope="col">Node</th>
              <th scope="col">On it since</th>
              <th scope="col" className="num">
                Hosts
              </th>
              <th scope="col" className="num">
                Ready
              </th>
              <th scope="col" className="num">
                Queued URLs
              </th>
              <th scope="col" className="num">
                Leases
              </th>
              <th scope="col" className="num">
                Dead letters
              </th>
            </tr>
          </thead>
          <tbody>
            {shards.data.items.map((s) => (
              <tr key={s.shard}>
                <td>{s.shard}</td>
                <td className="mono">{s.node ?? 'single Redis'}</td>
                <td>{s.node_since ? <Time at={s.node_since} /> : '—'}</td>
                <td className="num">{formatCount(s.hosts)}</td>
                <td className="num">{formatCount(s.ready_hosts)}</td>
                <td className="num">
                  <span
                    className="inline-bar"
                    aria-hidden="true"
                    style={{ width: `${(s.queued_urls / max) * 60}px` }}
                  />{' '}
                  {formatCount(s.queued_urls)}
                </td>
                <td className="num">{formatCount(s.open_leases)}</td>
                <td className="num">{formatCount(s.dead_letters)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
