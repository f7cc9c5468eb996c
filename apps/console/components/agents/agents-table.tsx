'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';
import { useApi } from '../../lib/client/use-api';
import { formatRate } from '../../lib/format';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

interface Agent {
  id: string;
  last_beat_at: string | number;
  first_seen_at: string | null;
  alive: boolean;
  leases: number;
  hosts: string[];
  pages_per_s: number;
}

export function AgentsTable(): ReactNode {
  const agents = useApi<{ items: Agent[] }>('/agents', 3_000);
  return (
    <Panel title="Agents" aside="refreshes every 3 s">
      {agents.loading && <Loading what="agents" />}
      {agents.error && <ErrorBox title="Cannot list agents" error={agents.error} />}
      {agents.data && agents.data.items.length === 0 && (
        <EmptyState title="No agent has reported yet">
          Start one with <code>npm start</code> (or <code>node apps/agent/src/main.ts</code> on
          another machine).
        </EmptyState>
      )}
      {agents.data && agents.data.items.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">Agents</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">State</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">First seen</th>
              <th scope="col" className="num">
                Pages/s
              </th>
              <th scope="col" className="num">
                Leases
              </th>
              <th scope="col">Leasing hosts</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.items.map((a) => (
              <tr key={a.id}>
                <td className="mono">{a.id}</td>
                <td>
                  {a.alive ? (
                    <span className="badge badge--ok">alive</span>
                  ) : (
                    <span className="badge badge--danger">silent</span>
                  )}
                </td>
                <td>
                  <Time at={a.last_beat_at} />
                </td>
                <td>{a.first_seen_at ? <Time at={a.first_seen_at} /> : '—'}</td>
                <td className="num">{formatRate(a.pages_per_s)}</td>
                <td className="num">{a.leases}</td>
                <td className="break">
                  {a.hosts.length === 0
                    ? '—'
                    : a.hosts.map((h, i) => (
                        <span key={h}>
                          {i > 0 && ', '}
                          <Link href={`/hosts/${encodeURIComponent(h)}`}>{h}</Link>
                        </span>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
