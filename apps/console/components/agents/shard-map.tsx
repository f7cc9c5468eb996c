'use client';

import { useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterOutputs } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { formatCount } from '../../lib/format';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';
import { MoveProgress, MoveState, ShardMoveControl } from './shard-move';

type Shards = RouterOutputs['shards']['list'];

/**
 * Logical frontier shards, their load and the Redis node that holds each; for admins on a Redis
 * Cluster, "Move…" moves a shard to another master (`shards.move`) and follows its progress.
 */
export function ShardMap({ initial }: { initial?: Settled<Shards> }): ReactNode {
  const shards = useQuery(api.shards.list, {}, { pollMs: 5_000, initial });
  const canMove = useCan('admin');
  const nodes = useQuery(api.shards.nodes, canMove ? undefined : null);
  const action = useAction('The shard was not moved');
  const [following, setFollowing] = useState<number | null>(null);
  const cluster = nodes.data?.cluster === true;
  const max = Math.max(1, ...(shards.data?.items.map((s) => s.queued_urls) ?? [1]));
  return (
    <Panel
      title="Shard map"
      aside={
        canMove && nodes.data && !cluster
          ? 'hosts → shard by a stable hash; a single Redis: shards cannot move'
          : 'hosts → shard by a stable hash'
      }
    >
      <ActionStatus action={action} />
      {following !== null && (
        <MoveProgress key={following} shard={following} onEnd={shards.refresh} />
      )}
      {shards.loading && <Loading what="shards" />}
      {shards.error && <ErrorBox title="Cannot load the shard map" error={shards.error} />}
      {shards.data && (
        <DataTable
          caption="Frontier shards"
          dense
          rows={shards.data.items}
          rowKey={(s) => s.shard}
          rowAttributes={(s) => ({ 'data-shard': String(s.shard) })}
          columns={[
            { header: 'Shard', cell: (s) => s.shard },
            { header: 'Node', className: 'mono', cell: (s) => s.node ?? 'single Redis' },
            {
              header: 'On it since',
              cell: (s) => (s.node_since ? <Time at={s.node_since} /> : '—'),
            },
            { header: 'Hosts', num: true, cell: (s) => formatCount(s.hosts) },
            { header: 'Ready', num: true, cell: (s) => formatCount(s.ready_hosts) },
            {
              header: 'Queued URLs',
              num: true,
              cell: (s) => (
                <>
                  <span
                    className="inline-bar"
                    aria-hidden="true"
                    style={{ width: `${(s.queued_urls / max) * 60}px` }}
                  />{' '}
                  {formatCount(s.queued_urls)}
                </>
              ),
            },
            { header: 'Leases', num: true, cell: (s) => formatCount(s.open_leases) },
            { header: 'Dead letters', num: true, cell: (s) => formatCount(s.dead_letters) },
            { header: 'State', cell: (s) => <MoveState frozen={s.frozen} move={s.move} /> },
            canMove &&
              cluster && {
                header: 'Action',
                cell: (s) => (
                  <ShardMoveControl
                    shard={s.shard}
                    node={s.node}
                    nodes={nodes.data?.nodes ?? []}
                    action={action}
                    onStarted={(m) => {
                      setFollowing(m.status === 'running' ? m.shard : null);
                      shards.refresh();
                    }}
                  />
                ),
              },
          ]}
        />
      )}
    </Panel>
  );
}
