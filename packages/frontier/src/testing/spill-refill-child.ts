/**
 * A refiller that dies mid-way, for spill-crash.integration.test.ts: it drains the spill of one
 * frontier and SIGKILLs itself right after its first refill batch is in Redis, before the batch's
 * rows leave Postgres. Argv: REDIS_URL, key prefix, database URL, shards, head bound, batch size.
 */
import { connectRedis } from '@crawler/adapters/redis';
import pg from 'pg';
import { Frontier } from '../frontier';
import { SpillPump } from '../spill-pump';
import { SpillStore } from '../spill-store';

const [redisUrl, prefix, databaseUrl, shards, headMax, batch] = process.argv.slice(2);
const redis = await connectRedis(redisUrl!);
const f = new Frontier(redis, {
  prefix: prefix!,
  shards: Number(shards),
  headMax: Number(headMax),
  maxUrlsPerLease: Number(batch),
});
const pool = new pg.Pool({ connectionString: databaseUrl });
const pump = new SpillPump(f.spill, new SpillStore(pool, prefix!), {
  afterPush: () => {
    process.kill(process.pid, 'SIGKILL');
  },
});
await pump.drain();
// Reached only when no refill ran at all.
process.exit(3);
