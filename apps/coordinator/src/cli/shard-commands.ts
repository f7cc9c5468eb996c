import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiCall } from './api-call';
import { print, UsageError } from './cli-output';

export const SHARDS_USAGE = `  crawler shards list                                        logical shards: Redis node, load, frozen,
                                                             latest move
  crawler shards nodes                                       Redis Cluster masters a shard can move to
  crawler shards move SHARD --to NODE [--keys-per-batch N]   (admin) move a shard to another master
                                    (host:port or node id): freeze it, migrate its hash slot, thaw
                                    it. Prints progress, then the result; safe to run again after
                                    a failure or a coordinator crash: it finishes the move
  crawler shards status SHARD                                the latest move of a shard`;

interface MoveView {
  status: 'running' | 'done' | 'failed' | 'interrupted';
  phase: string;
  keys_total: number | null;
  keys_moved: number;
  from: string | null;
  to: string;
  error: { code: string; message: string } | null;
}

/** How often a running move's progress is asked for. */
const POLL_MS = 1000;

/** `crawler shards list|nodes|move|status …` (args after `shards`). */
export async function shardsCommand(sub: string | undefined, args: string[]): Promise<number> {
  if (sub === 'list' && args.length === 0) return print({ items: await allShards() });
  if (sub === 'nodes' && args.length === 0) return print(await apiCall('GET', '/v1/shards/nodes'));
  if (sub === 'status' && args.length === 1)
    return print(await apiCall('GET', `/v1/shards/${shardArg(args[0])}/move`));
  if (sub === 'move') return move(args);
  throw new UsageError(
    'use: crawler shards list | nodes | move SHARD --to NODE [--keys-per-batch N] | status SHARD',
  );
}

async function allShards(): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const page = (await apiCall('GET', `/v1/shards${query}`)) as {
      items: unknown[];
      next_cursor: string | null;
    };
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

/**
 * Starts the move (the coordinator answers at once, `wait_ms: 0`) and follows it: its progress is
 * read every second and printed on stderr when it changes; the result is printed as JSON. Exit
 * code 0 when the move is done.
 */
async function move(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { to: { type: 'string' }, 'keys-per-batch': { type: 'string' } },
  });
  if (positionals.length !== 1 || !values.to)
    throw new UsageError('use: crawler shards move SHARD --to NODE (host:port or node id)');
  const shard = shardArg(positionals[0]);
  const body: Record<string, unknown> = { to: values.to, wait_ms: 0 };
  if (values['keys-per-batch'] !== undefined)
    body.keys_per_batch = Number(values['keys-per-batch']);
  const progress = progressPrinter(Date.now());
  let out = (await apiCall('POST', `/v1/shards/${shard}/move`, body)) as MoveView;
  while (out.status === 'running') {
    progress(out);
    await sleep(POLL_MS);
    out = (await apiCall('GET', `/v1/shards/${shard}/move`)) as MoveView;
  }
  progress(out);
  return print(out, out.status === 'done' ? 0 : 1);
}

/** Prints a progress line when the phase or the keys moved changed since the last one. */
function progressPrinter(started: number): (m: MoveView) => void {
  let last = '';
  return (m) => {
    const keys =
      m.keys_total === null
        ? ''
        : `  ${m.keys_moved}/${m.keys_total} keys` +
          (m.keys_total > 0 ? ` (${Math.floor((100 * m.keys_moved) / m.keys_total)}%)` : '');
    const line = `${m.status === 'running' ? m.phase : m.status}${keys}  ${m.from ?? '?'} → ${m.to}`;
    if (line === last) return;
    last = line;
    const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
    console.error(`[${s}s] ${line}${m.error ? `: ${m.error.message}` : ''}`);
  };
}

function shardArg(v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(n))
    throw new UsageError(`SHARD must be a shard number (0, 1, …), not "${v ?? ''}"`);
  return n;
}
