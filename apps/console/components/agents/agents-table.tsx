'use client';

import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import { formatRate } from '../../lib/format';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

interface OpenLease {
  host: string;
  shard: number;
  expires_at: string;
}

interface Agent {
  id: string;
  last_beat_at: string | number | null;
  first_seen_at: string | null;
  alive: boolean;
  /** Absent on older coordinators: alive or not only. */
  state?: 'alive' | 'dead' | 'stopped';
  leases: number;
  hosts: string[];
  open_leases?: OpenLease[];
  leases_expire_at?: string | null;
  pages_per_s: number;
}

function StateBadge({ agent }: { agent: Agent }): ReactNode {
  const state = agent.state ?? (agent.alive ? 'alive' : 'dead');
  if (state === 'alive') return <span className="badge badge--ok">alive</span>;
  if (state === 'stopped')
    return (
      <span className="badge" title="Left cleanly (drained its leases)">
        stopped
      </span>
    );
  return (
    <span className="badge badge--danger" title="No heartbeat for 15 s and it did not stop">
      dead
    </span>
  );
}

/** A dead agent's leases: each host and when its lease expires (or expired, not yet reclaimed). */
function DeadLeases({ agent }: { agent: Agent }): ReactNode {
  const leases = agent.open_leases ?? [];
  const now = Date.now();
  return (
    <ul className="lease-list" aria-label={`Open leases of ${agent.id}`}>
      {leases.map((l) => (
        <li key={`${l.shard}:${l.host}`}>
          <Link href={`/hosts/${encodeURIComponent(l.host)}`}>{l.host}</Link>{' '}
          <span className="muted">
            {Date.parse(l.expires_at) <= now ? 'expired ' : 'expires '}
            <Time at={l.expires_at} />
          </span>
        </li>
      ))}
      {agent.leases > leases.length && (
        <li className="muted">
          and {agent.leases - leases.length} more, the last expiring{' '}
          <Time at={agent.leases_expire_at} />
        </li>
      )}
    </ul>
  );
}

function HostLinks({ hosts }: { hosts: string[] }): ReactNode {
  if (hosts.length === 0) return '—';
  return hosts.map((h, i) => (
    <span key={h}>
      {i > 0 && ', '}
      <Link href={`/hosts/${encodeURIComponent(h)}`}>{h}</Link>
    </span>
  ));
}

/**
 * Agents with their state (alive, dead: silent without having stopped, stopped), their open
 * leases (a dead agent's with when each expires) and, for operators, "Release leases now".
 */
export function AgentsTable(): ReactNode {
  const agents = useApi<{ items: Agent[] }>('/agents', 3_000);
  const canRelease = useCan('operator');
  const [busy, setBusy] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);

  const release = async (id: string): Promise<void> => {
    setBusy(id);
    setError(null);
    setNote(null);
    const r = await apiSend<{ released: number }>(
      'POST',
      `/agents/${encodeURIComponent(id)}/release-leases`,
    );
    setBusy(null);
    if (!r.ok) return setError(r);
    setNote(
      `${r.data.released} lease${r.data.released === 1 ? '' : 's'} of ${id} released: ` +
        'their hosts are back in the queues for the live agents.',
    );
    agents.refresh();
  };

  return (
    <Panel title="Agents" aside="refreshes every 3 s">
      {note && (
        <p className="notice notice--ok" role="status">
          {note}
        </p>
      )}
      {error && <ErrorBox title="No lease was released" error={error} />}
      {agents.loading && <Loading what="agents" />}
      {agents.error && <ErrorBox title="Cannot list agents" error={agents.error} />}
      {agents.data && agents.data.items.length === 0 && (
        <EmptyState title="No agent has reported yet">
          Start one with <code>npm start</code> (or <code>node apps/agent/dist/main.js</code> on
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
              {canRelease && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {agents.data.items.map((a) => {
              const dead = (a.state ?? (a.alive ? 'alive' : 'dead')) === 'dead';
              return (
                <tr key={a.id} data-agent={a.id}>
                  <td className="mono">{a.id}</td>
                  <td>
                    <StateBadge agent={a} />
                  </td>
                  <td>
                    <Time at={a.last_beat_at} />
                  </td>
                  <td>{a.first_seen_at ? <Time at={a.first_seen_at} /> : '—'}</td>
                  <td className="num">{formatRate(a.pages_per_s)}</td>
                  <td className="num">{a.leases}</td>
                  <td className="break">
                    {dead && a.leases > 0 && a.open_leases ? (
                      <DeadLeases agent={a} />
                    ) : (
                      <HostLinks hosts={a.hosts} />
                    )}
                  </td>
                  {canRelease && (
                    <td>
                      {dead && a.leases > 0 ? (
                        <button
                          type="button"
                          className="button button--small"
                          disabled={busy !== null}
                          title="Return its hosts to the queues now instead of when the leases expire"
                          onClick={() => void release(a.id)}
                        >
                          {busy === a.id ? 'Releasing…' : 'Release leases now'}
                        </button>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
