import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/shared/analytics';
import type { RedisClient } from '@crawler/shared/redis';
import type { FleetRepository } from '../db/fleet-repository';
import { AGENT_ALIVE_MS } from '../stats/get-stats';
import { listAgentsInput, type AgentView } from './list-agents.types';

const RATE_WINDOW_S = 60;
const MAX_HOSTS_SHOWN = 20;

const RATES_SQL = `
SELECT agent_id, count() AS n FROM fetches
WHERE fetched_at > now64(3) - INTERVAL ${RATE_WINDOW_S} SECOND AND error_code != 'robots_denied'
GROUP BY agent_id`;

/**
 * Open leases per agent: each shard's lease set (lease id → deadline), the lease's host
 * (`l:<lease id>`), and the agent holding the host (`lease_agent` in the host hash). Read-only,
 * pipelined per shard.
 */
async function leasesByAgent(
  redis: RedisClient,
  frontier: Frontier,
  now: number,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  await Promise.all(
    Array.from({ length: frontier.shards }, async (_, s) => {
      const ids = await redis.zrangebyscore(frontier.keys.leases(s), now, '+inf');
      if (ids.length === 0) return;
      const prefix = frontier.keys.shard(s);
      const hosts = await Promise.all(ids.map((id) => redis.hget(`${prefix}l:${id}`, 'host')));
      await Promise.all(
        ids.map(async (id, i) => {
          const host = hosts[i];
          if (!host) return;
          const [lease, agent] = await redis.hmget(
            frontier.keys.host(s, host),
            'lease',
            'lease_agent',
          );
          if (lease !== id || !agent) return;
          const list = out.get(agent) ?? [];
          list.push(host);
          out.set(agent, list);
        }),
      );
    }),
  );
  return out;
}

/**
 * `GET /v1/agents`: every agent seen (a heartbeat now, or recorded in Postgres before), alive or
 * not, with its open leases and recent throughput.
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
  const [beats, leases, rates, seen] = await Promise.all([
    deps.redis.zrange(deps.agentsKey, '0', '-1', 'WITHSCORES'),
    leasesByAgent(deps.redis, deps.frontier, now),
    deps.analytics.queryJson<{ agent_id: string; n: string | number }>(RATES_SQL),
    deps.store.fleet.listAgents(),
  ]);
  const rate = new Map(rates.map((r) => [r.agent_id, Number(r.n) / RATE_WINDOW_S]));
  // Agents with a heartbeat in Redis, and those Postgres saw before (stopped or gone).
  const firstSeen = new Map(seen.map((a) => [a.id, a.firstSeenAt]));
  const beatOf = new Map(seen.map((a) => [a.id, a.lastSeenAt.getTime()]));
  for (let i = 0; i + 1 < beats.length; i += 2) beatOf.set(beats[i]!, Number(beats[i + 1]));
  const agents = [...beatOf].map(([id, beat]) => ({ id, beat }));
  agents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const after = input.cursor;
  const rest = after === undefined ? agents : agents.filter((a) => a.id > after);
  const page = rest.slice(0, input.limit);
  return {
    items: page.map((a) => {
      const hosts = (leases.get(a.id) ?? []).sort();
      return {
        id: a.id,
        last_beat_at: new Date(a.beat).toISOString(),
        first_seen_at: firstSeen.get(a.id)?.toISOString() ?? null,
        alive: a.beat > now - AGENT_ALIVE_MS,
        leases: hosts.length,
        hosts: hosts.slice(0, MAX_HOSTS_SHOWN),
        pages_per_s: rate.get(a.id) ?? 0,
      };
    }),
    next_cursor: rest.length > input.limit ? page[page.length - 1]!.id : null,
  };
}
