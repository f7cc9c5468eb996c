import type { DbClient } from './prisma';

export interface AgentSeenRow {
  id: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

export interface ShardMapRow {
  shard: number;
  node: string;
  since: Date;
  checkedAt: Date;
}

/** The only code that knows how agents seen and the shard map are stored. */
export class FleetRepository {
  constructor(private readonly db: DbClient) {}

  /** Records heartbeats: new agents get their first-seen time, known ones a later last-seen. */
  async recordAgents(beats: { id: string; at: Date }[]): Promise<void> {
    if (beats.length === 0) return;
    await this.db.$executeRaw`
      INSERT INTO agents (id, first_seen_at, last_seen_at)
      SELECT b.id, b.at, b.at
        FROM unnest(${beats.map((b) => b.id)}::text[], ${beats.map((b) => b.at)}::timestamptz[])
          AS b(id, at)
      ON CONFLICT (id) DO UPDATE
        SET last_seen_at = GREATEST(agents.last_seen_at, EXCLUDED.last_seen_at)`;
  }

  async listAgents(): Promise<AgentSeenRow[]> {
    return this.db.agent.findMany({ orderBy: { id: 'asc' } });
  }

  /** Whether an agent was ever recorded. */
  async hasAgent(id: string): Promise<boolean> {
    return (await this.db.agent.findUnique({ where: { id }, select: { id: true } })) !== null;
  }

  /** Records which node serves each shard; `since` moves only when the node changes. */
  async recordShardMap(entries: { shard: number; node: string }[], at: Date): Promise<void> {
    if (entries.length === 0) return;
    await this.db.$executeRaw`
      INSERT INTO shard_map (shard, node, since, checked_at)
      SELECT e.shard, e.node, ${at}, ${at}
        FROM unnest(${entries.map((e) => e.shard)}::int[], ${entries.map((e) => e.node)}::text[])
          AS e(shard, node)
      ON CONFLICT (shard) DO UPDATE
        SET since = CASE WHEN shard_map.node = EXCLUDED.node THEN shard_map.since
                         ELSE EXCLUDED.since END,
            node = EXCLUDED.node,
            checked_at = EXCLUDED.checked_at`;
  }

  async shardMap(): Promise<ShardMapRow[]> {
    return this.db.shardMapEntry.findMany({ orderBy: { shard: 'asc' } });
  }
}
