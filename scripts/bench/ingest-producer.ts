// The agents' side of `npm run bench -- ingest`, in a process of its own so its CPU is not counted:
// generates telemetry rows, says "ready", waits for "go" on stdin, then appends them to the
// telemetry stream as agents' TelemetrySink does (entries of N rows), keeping the stream's
// backlog bounded, and says "done".
//   tsx scripts/bench/ingest-producer.ts REDIS_URL STREAM_KEY ROWS ROWS_PER_ENTRY HOSTS
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '@crawler/adapters/redis';
import { telemetryRow } from './ingest-rows';

/** Telemetry rows waiting in the stream at most: a producer as fast as a fleet, never flooding Redis. */
const MAX_BACKLOG_ROWS = 200_000;

const [url = '', key = '', rowsArg = '0', perEntryArg = '500', hostsArg = '5000'] =
  process.argv.slice(2);
const rows = Number(rowsArg);
const perEntry = Number(perEntryArg);
const hosts = Number(hostsArg);
const now = Date.now();
const entries: string[] = [];
for (let i = 0; i < rows; i += perEntry) {
  const batch = [];
  for (let k = i; k < Math.min(rows, i + perEntry); k++) batch.push(telemetryRow(k, hosts, now));
  entries.push(JSON.stringify(batch));
}
const redis = await connectRedis(url);
console.log('ready');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
for (let e = 0; e < entries.length; e++) {
  if (e % 20 === 0) while ((await redis.xlen(key)) * perEntry > MAX_BACKLOG_ROWS) await sleep(2);
  await redis.xadd(key, 'MAXLEN', '~', '5000000', '*', 'rows', entries[e] ?? '[]');
}
console.log('done');
redis.disconnect();
