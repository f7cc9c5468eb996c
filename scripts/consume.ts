// `npm run consume -- --group NAME [--consumer ID] [--out FILE.jsonl] [--from-start] [--max N]
//                     [--batch N] [--exit-idle-ms MS] [--claim-idle-ms MS]`
// `npm run consume -- --group NAME --unregister`
//
// Reads the `pages.parsed` feed as consumer group NAME and writes one page per line (the feed's
// JSON message) to stdout, or appends it to --out. At least once: a batch is acknowledged only
// after its lines are written (and, with --out, synced to disk), so a consumer killed at any
// moment re-reads at most the batch it had in hand when restarted with the same --consumer.
// Pages pending with a consumer of the group that went away are taken over after
// --claim-idle-ms (default 60,000). Entries that are not valid pages are reported on stderr and
// acknowledged. Redis and the feed come from the usual variables: REDIS_URL, REDIS_CLUSTER,
// REDIS_PREFIX, FEED_PARTITIONS. The group is registered from its first run on: the feed keeps
// every page it has not acknowledged, and when a group falls so far behind that unread pages
// reach 90% of FEED_MAX_BYTES, agents take no new lease until it reads on (FEED_OVERFLOW=hold;
// with `drop` the oldest are trimmed, counted as the group's `dropped`). See its lag with
// `redis-cli XINFO GROUPS <prefix>:pages.parsed:{N}`, or the summary printed on exit.
// --unregister removes the group from the feed (XGROUP DESTROY on every partition), counting the
// pages it had not acknowledged as dropped: a group that will not read again would hold the crawl.
import { open, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '@crawler/domain/config';
import { FeedConsumer, FeedRetention, type FeedPage } from '@crawler/adapters/feed';
import { PAGES_INGEST_GROUP } from '@crawler/domain/messages';
import { connectRedis } from '@crawler/adapters/redis';

const USAGE =
  'usage: npm run consume -- --group NAME [--consumer ID] [--out FILE.jsonl] [--from-start] ' +
  '[--max N] [--batch N] [--exit-idle-ms MS] [--claim-idle-ms MS]\n' +
  '       npm run consume -- --group NAME --unregister';

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number, got "${raw}"`);
  return n;
}

/** Drops a partial last line (a write cut short by a kill): its batch was never acknowledged. */
async function openOut(path: string): Promise<FileHandle> {
  const fh = await open(path, 'a+');
  const { size } = await fh.stat();
  if (size > 0) {
    const tail = Buffer.alloc(Math.min(size, 1 << 20));
    let end = size;
    for (;;) {
      const start = Math.max(0, end - tail.length);
      const { bytesRead } = await fh.read(tail, 0, end - start, start);
      const at = tail.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (end === size && at === bytesRead - 1) break; // ends with a newline: whole
      if (at >= 0 || start === 0) {
        await fh.truncate(at >= 0 ? start + at + 1 : 0);
        break;
      }
      end = start;
    }
  }
  return fh;
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) =>
    process.stdout.write(text, (err) => (err ? reject(err) : resolve())),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      group: { type: 'string' },
      consumer: { type: 'string' },
      out: { type: 'string' },
      'from-start': { type: 'boolean', default: false },
      max: { type: 'string' },
      batch: { type: 'string' },
      'exit-idle-ms': { type: 'string' },
      'claim-idle-ms': { type: 'string' },
      unregister: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const group = values.group ?? fail('--group is required');
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(group)) fail('--group: letters, digits and _ . : - only');
  const consumerName = values.consumer ?? hostname();
  const max = positive('max', values.max, 0); // 0 = no limit
  const batchSize = Math.max(1, positive('batch', values.batch, 100));
  const exitIdleMs = positive('exit-idle-ms', values['exit-idle-ms'], 0);
  const claimIdleMs = positive('claim-idle-ms', values['claim-idle-ms'], 60_000);

  const config = loadConfig(process.env);
  // A connection of its own: reads BLOCK it.
  const redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  if (values.unregister) {
    if (group === PAGES_INGEST_GROUP) fail(`--unregister: "${group}" is the coordinator's group`);
    const dropped = await new FeedRetention(redis, {
      prefix: config.REDIS_PREFIX,
      partitions: config.FEED_PARTITIONS,
    }).unregister(group);
    redis.disconnect();
    if (dropped === null) {
      console.error(`no consumer group "${group}" on the feed`);
      process.exit(1);
    }
    console.error(JSON.stringify({ group, unregistered: true, dropped }));
    return;
  }
  const out = values.out ? await openOut(values.out) : null;
  const feed = new FeedConsumer(redis, {
    prefix: config.REDIS_PREFIX,
    partitions: config.FEED_PARTITIONS,
    group,
    consumer: consumerName,
    fromStart: values['from-start'],
    claimIdleMs,
  });
  await feed.start();

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      stopping = true;
    });

  let written = 0;
  let idleSince = Date.now();
  while (!stopping && (max === 0 || written < max)) {
    const count = max === 0 ? batchSize : Math.min(batchSize, max - written);
    const blockMs = exitIdleMs > 0 ? Math.min(1000, exitIdleMs) : 1000;
    const batch = await feed.read({ count, blockMs });
    for (const r of batch.rejected)
      console.error(JSON.stringify({ rejected: r.id, partition: r.partition, reason: r.reason }));
    if (batch.pages.length > 0) {
      const text = batch.pages.map((p: FeedPage) => `${JSON.stringify(p.page)}\n`).join('');
      if (out) {
        await out.write(text);
        await out.datasync();
      } else await writeStdout(text);
      written += batch.pages.length;
    }
    // Only now, with the lines on disk (or handed to stdout), are the pages done with.
    await feed.ack([...batch.pages, ...batch.rejected]);
    if (batch.pages.length + batch.rejected.length > 0) idleSince = Date.now();
    else if (exitIdleMs > 0 && Date.now() - idleSince >= exitIdleMs) break;
  }

  const lag = await feed.lag();
  console.error(
    JSON.stringify({
      group,
      consumer: consumerName,
      written,
      rejected: feed.rejected,
      claimed: feed.claimed,
      lost_to_retention: feed.trimmed,
      dropped: await feed.dropped(),
      lag: lag.reduce((n, p) => n + (p.lag ?? 0), 0),
      pending: lag.reduce((n, p) => n + p.pending, 0),
    }),
  );
  await out?.close();
  redis.disconnect();
}

await main();
