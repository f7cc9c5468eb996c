import type { Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { AppError } from '../api/app-error';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { Store } from '../db/store';
import { AGENT_ALIVE_MS, isAlive } from './heartbeats';
import { releaseAgentLeasesInput } from './list-agents.types';

/**
 * Returns a dead agent's open leases to their hosts' queues now, instead of when they expire
 * (URLs it recorded as done stay done). Refused (409) while the agent is alive: it is working
 * them. An agent no store knows and holding nothing is a 404. The change is in Redis, so the
 * audit entry is written after it.
 */
export async function releaseAgentLeases(
  deps: { redis: RedisClient; agentsKey: string; frontier: Frontier; store: Store },
  actor: Actor,
  raw: unknown,
  now = Date.now(),
): Promise<{ agent_id: string; released: number; last_beat_at: string | null }> {
  const { id } = releaseAgentLeasesInput.parse(raw);
  const score = await deps.redis.zscore(deps.agentsKey, id);
  const beat = score === null ? undefined : Number(score);
  const lastBeatAt = beat === undefined ? null : new Date(beat).toISOString();
  if (isAlive(beat, now))
    throw new AppError(
      'CONFLICT',
      `agent ${id} is alive (last heartbeat ${Math.max(0, Math.round((now - beat!) / 1000))} s ago) ` +
        `and working its leases; stop it, or wait until it has been silent for ${AGENT_ALIVE_MS / 1000} s`,
      { agent_id: id, last_beat_at: lastBeatAt },
    );
  const released = await deps.frontier.releaseLeasesOf(id);
  if (released === 0 && beat === undefined && !(await deps.store.fleet.hasAgent(id)))
    throw new AppError('NOT_FOUND', `no agent ${id} is known`);
  await deps.store.audit.record(
    auditEntry(actor, 'agents.releaseLeases', id, { last_beat_at: lastBeatAt }, { released }),
  );
  return { agent_id: id, released, last_beat_at: lastBeatAt };
}
