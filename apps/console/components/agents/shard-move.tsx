'use client';

import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { RouterOutputs } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import type { Action } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { formatPercent } from '../../lib/format';

type ShardMove = RouterOutputs['shards']['moveStatus'];
/** A move as the shard map lists it (without whether the shard is frozen now). */
type MoveRecord = Omit<ShardMove, 'frozen'>;
type RedisNode = RouterOutputs['shards']['nodes']['nodes'][number];

/** One line about a move: its phase or outcome, keys moved, from → to. */
export function describeMove(m: MoveRecord): string {
  const keys =
    m.keys_total === null
      ? ''
      : `, ${m.keys_moved} of ${m.keys_total} keys` +
        (m.keys_total > 0 ? ` (${formatPercent(m.keys_moved, m.keys_total)})` : '');
  const what =
    m.status === 'running'
      ? `moving (${m.phase.replace('_', ' ')})`
      : m.status === 'done'
        ? m.noop
          ? 'already there'
          : 'moved'
        : m.status;
  return `Shard ${m.shard} ${what}${keys}: ${m.from ?? '?'} → ${m.to}`;
}

/** The shard-map cell of a shard's state: frozen, and its latest move unless it went well. */
export function MoveState({
  frozen,
  move,
}: {
  frozen: boolean;
  move: MoveRecord | null;
}): ReactNode {
  const running = move?.status === 'running';
  return (
    <>
      {frozen && (
        <span
          className="badge badge--danger"
          title="Its scripts refuse work until the move finishes: run the move again if it stopped"
        >
          {running ? 'moving' : 'frozen'}
        </span>
      )}{' '}
      {move && move.status !== 'done' && (
        <span className="muted" title={move.error?.message}>
          {running
            ? move.keys_total
              ? formatPercent(move.keys_moved, move.keys_total)
              : move.phase
            : `move ${move.status}`}
        </span>
      )}
      {!frozen && (!move || move.status === 'done') && <span className="muted">—</span>}
    </>
  );
}

/**
 * An admin's "Move…" of one shard: picking a master and confirming starts the move
 * (`shards.move`, answered at once: a move outlasts the console's 10 s calls to the coordinator);
 * what happened is shown by the map's `action`, and `onStarted` gets the move so the map can
 * follow it.
 */
export function ShardMoveControl(props: {
  shard: number;
  /** The node serving the shard now (`host:port`), not offered as a target. */
  node: string | null;
  nodes: readonly RedisNode[];
  action: Pick<Action, 'run' | 'busy'>;
  onStarted: (move: ShardMove) => void;
}): ReactNode {
  const { shard, action } = props;
  // The shard map names a node as the cluster client does: its address, or its announced hostname.
  const serves = (n: RedisNode) =>
    n.address === props.node ||
    (n.hostname !== null && `${n.hostname}:${n.address.split(':').pop()}` === props.node);
  const targets = props.nodes.filter((n) => !serves(n));
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState('');
  // The pick, while it is still a target (the shard or the cluster may have changed since).
  const to = targets.some((t) => t.address === picked) ? picked : (targets[0]?.address ?? '');
  if (targets.length === 0) return <span className="muted">—</span>;
  if (!open)
    return (
      <button
        type="button"
        className="button button--small"
        disabled={action.busy}
        onClick={() => setOpen(true)}
        aria-label={`Move shard ${shard}…`}
      >
        Move…
      </button>
    );

  const submit = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    if (!to) return;
    const r = await action.run(() => api.shards.move.mutate({ shard, to, wait_ms: 0 }), {
      done: (m) =>
        m.status === 'running'
          ? `Shard ${shard} is moving to ${m.to}; its progress is shown below.`
          : describeMove(m) + (m.error ? `: ${m.error.message}` : '.'),
      failed: `Shard ${shard} was not moved`,
    });
    setOpen(false);
    if (r.ok) props.onStarted(r.data);
  };

  return (
    <form className="form--row" onSubmit={(e) => void submit(e)} aria-label={`Move shard ${shard}`}>
      <label className="visually-hidden" htmlFor={`move-to-${shard}`}>
        Move shard {shard} to
      </label>
      <select
        id={`move-to-${shard}`}
        value={to}
        disabled={action.busy}
        onChange={(e) => setPicked(e.target.value)}
      >
        {targets.map((n) => (
          <option key={n.id} value={n.address}>
            {n.address} ({n.shards} shards)
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="button button--small button--danger"
        disabled={action.busy || !to}
        title="Freezes the shard (its hosts pause) while its keys move, then thaws it"
      >
        {action.busy ? 'Moving…' : `Move shard ${shard}`}
      </button>
      <button
        type="button"
        className="button button--small"
        disabled={action.busy}
        onClick={() => setOpen(false)}
      >
        Cancel
      </button>
    </form>
  );
}

/**
 * A move started here: read every second until it ends, then its outcome stays shown; `onEnd`
 * lets the map reload.
 */
export function MoveProgress(props: { shard: number; onEnd: () => void }): ReactNode {
  const [ended, setEnded] = useState(false);
  const move = useQuery(api.shards.moveStatus, ended ? null : { shard: props.shard }, {
    pollMs: 1_000,
  });
  const status = move.data?.status;
  const { onEnd } = props;
  useEffect(() => {
    if (status !== undefined && status !== 'running' && !ended) {
      setEnded(true);
      onEnd();
    }
  }, [status, ended, onEnd]);
  if (!move.data) return null;
  const m = move.data;
  return (
    <p
      className={m.status === 'done' ? 'notice notice--ok' : 'notice'}
      role="status"
      data-testid={`shard-move-${m.shard}`}
    >
      {describeMove(m)}
      {m.error ? `: ${m.error.message}` : '.'}
    </p>
  );
}
