import type { Frontier, OpenLease } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import type { FleetRepository } from '../db/fleet-repository';
import { isAlive, readHeartbeats } from './heartbeats';
import { listAgentsInput, type AgentView } from './list-agents.types';

const RATE_WINDOW_S = 60;
const MAX_SHOWN = 20;
/** Open leases read per shard (far above agents × AGENT_MAX_HOSTS). */
const MAX_LEASES_READ = 100_000;

// `fetch_timeline` (migration 009) is `fetches` sorted by time: the last minute is a few
// granules, where `fetches` (sorted by host first) read the whole day so far.
const RATES_SQL = `
SELECT agent_id, count() AS n FROM fetch_timeline
WHERE fetched_at > now64(3) - INTERVAL ${RATE_WINDOW_S} SECOND AND error_code != 'robots_denied'
GROUP BY agent_id`;

/**
 * `GET /v1/agents`: every agent seen (a heartbeat now, recorded in Postgres before, or holding
 * leases), alive, dead or stopped, with its open leases and recent throughput.
 */
export async function listAgents(
  deps: {
    redis: RedisClient;
    frontier: Frontier;
    analytics: AnalyticsStore;
    agentsKey: string;
    store: { fleet: FleetRepository };
  },
  raw: unknown,
  now = Date.now(),
): Promise<{ items: AgentView[]; next_cursor: string | null }> {
  const input = listAgentsInput.parse(raw);
  const [beats, open, rates, seen] = await Promise.all([
    readHeartbeats(deps.redis, deps.agentsKey),
    deps.frontier.openLeases(MAX_LEASES_READ),
    deps.analytics.queryJson<{ agent_id: string; n: string | number }>(RATES_SQL),
    deps.store.fleet.listAgents(),
  ]);
  const rate = new Map(rates.map((r) => [r.agent_id, Number(r.n) / RATE_WINDOW_S]));
  // openLeases comes soonest deadline first, so each agent's list is too.
  const leases = new Map<string, OpenLease[]>();
  for (const l of open) {
    if (l.agentId === '') continue;
    const list = leases.get(l.agentId) ?? [];
    list.push(l);
    leases.set(l.agentId, list);
  }
  const firstSeen = new Map(seen.map((a) => [a.id, a.firstSeenAt]));
  // The last beat: Redis's when it has one, else the last Postgres recorded.
  const beatOf = new Map<string, number | null>(seen.map((a) => [a.id, a.lastSeenAt.getTime()]));
  for (const [id, beat] of beats) beatOf.set(id, beat);
  for (const id of leases.keys()) if (!beatOf.has(id)) beatOf.set(id, null);
  const ids = [...beatOf.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const after = input.cursor;
  const rest = after === undefined ? ids : ids.filter((id) => id > after);
  const page = rest.slice(0, input.limit);
  return {
    items: page.map((id): AgentView => {
      const beat = beatOf.get(id) ?? null;
      const held = leases.get(id) ?? [];
      const alive = isAlive(beats.get(id), now);
      const state = alive ? 'alive' : beats.has(id) || held.length > 0 ? 'dead' : 'stopped';
      return {
        id,
        last_beat_at: beat === null ? null : new Date(beat).toISOString(),
        first_seen_at: firstSeen.get(id)?.toISOString() ?? null,
        alive,
        state,
        leases: held.length,
        hosts: held
          .map((l) => l.host)
          .sort()
          .slice(0, MAX_SHOWN),
        open_leases: held.slice(0, MAX_SHOWN).map((l) => ({
          host: l.host,
          shard: l.shard,
          expires_at: new Date(l.deadlineMs).toISOString(),
        })),
        leases_expire_at:
          held.length > 0 ? new Date(held[held.length - 1]!.deadlineMs).toISOString() : null,
        pages_per_s: rate.get(id) ?? 0,
      };
    }),
    next_cursor: rest.length > input.limit ? page[page.length - 1]! : null,
  };
}
