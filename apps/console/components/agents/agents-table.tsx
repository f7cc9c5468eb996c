'use client';

import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterOutputs } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { formatRate } from '../../lib/format';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { Panel } from '../ui/panel';
import { QueryList } from '../ui/query-list';
import { Time } from '../ui/time';

type Agents = RouterOutputs['agents']['list'];
type Agent = Agents['items'][number];

function StateBadge({ agent }: { agent: Agent }): ReactNode {
  if (agent.state === 'alive') return <span className="badge badge--ok">alive</span>;
  if (agent.state === 'stopped')
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
  const leases = agent.open_leases;
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

const holdsDeadLeases = (a: Agent) => a.state === 'dead' && a.leases > 0;

/**
 * Agents with their state (alive, dead: silent without having stopped, stopped), their open
 * leases (a dead agent's with when each expires) and, for operators, "Release leases now".
 */
export function AgentsTable({ initial }: { initial?: Settled<Agents> }): ReactNode {
  const agents = useQuery(api.agents.list, {}, { pollMs: 3_000, initial });
  const canRelease = useCan('operator');
  const action = useAction('No lease was released');
  const [releasing, setReleasing] = useState<string | null>(null);

  const release = async (id: string): Promise<void> => {
    setReleasing(id);
    const r = await action.run(() => api.agents.releaseLeases.mutate({ id }), {
      done: (r) =>
        `${r.released} lease${r.released === 1 ? '' : 's'} of ${id} released: ` +
        'their hosts are back in the queues for the live agents.',
    });
    setReleasing(null);
    if (r.ok) agents.refresh();
  };

  return (
    <Panel title="Agents" aside="refreshes every 3 s">
      <ActionStatus action={action} />
      <QueryList
        query={agents}
        what="agents"
        empty={
          <EmptyState title="No agent has reported yet">
            Start one with <code>npm start</code> (or <code>node apps/agent/dist/main.js</code> on
            another machine).
          </EmptyState>
        }
      >
        {(items) => (
          <DataTable
            caption="Agents"
            rows={items}
            rowKey={(a) => a.id}
            rowAttributes={(a) => ({ 'data-agent': a.id })}
            columns={[
              { header: 'Agent', className: 'mono', cell: (a) => a.id },
              { header: 'State', cell: (a) => <StateBadge agent={a} /> },
              { header: 'Last heartbeat', cell: (a) => <Time at={a.last_beat_at} /> },
              {
                header: 'First seen',
                cell: (a) => (a.first_seen_at ? <Time at={a.first_seen_at} /> : '—'),
              },
              { header: 'Pages/s', num: true, cell: (a) => formatRate(a.pages_per_s) },
              { header: 'Leases', num: true, cell: (a) => a.leases },
              {
                header: 'Leasing hosts',
                className: 'break',
                cell: (a) =>
                  holdsDeadLeases(a) ? <DeadLeases agent={a} /> : <HostLinks hosts={a.hosts} />,
              },
              canRelease && {
                header: 'Action',
                cell: (a) =>
                  holdsDeadLeases(a) ? (
                    <button
                      type="button"
                      className="button button--small"
                      disabled={action.busy}
                      title="Return its hosts to the queues now instead of when the leases expire"
                      onClick={() => void release(a.id)}
                    >
                      {releasing === a.id ? 'Releasing…' : 'Release leases now'}
                    </button>
                  ) : (
                    <span className="muted">—</span>
                  ),
              },
            ]}
          />
        )}
      </QueryList>
    </Panel>
  );
}
