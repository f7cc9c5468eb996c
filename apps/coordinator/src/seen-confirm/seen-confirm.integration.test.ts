import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { createLogger } from '@crawler/adapters/log';
import { telemetryStreamKey } from '@crawler/domain/messages';
import { Frontier, type EnqueueUrl } from '@crawler/frontier';
import { deleteKeysWithPrefix, uniquePrefix } from '@crawler/testing';
import { SeenConfirmLoop } from './seen-confirm-loop';

// The seen set's confirmation on a real Redis and a real embedded ClickHouse: Bloom "maybe seen"
// answers for discovered URLs are checked against the frontier and the URL table; only the
// false positives are enqueued, once, and nothing is decided while the telemetry ingest lags.
const HOST = 'confirm.test';
let dir = '';
let analytics: AnalyticsStore;
let redis: RedisClient;
const prefixes: string[] = [];

function link(path: string, host = HOST): EnqueueUrl {
  const url = `http://${host}/${path}`;
  const urlFp = createHash('sha256').update(url).digest('hex').slice(0, 16);
  return { url, urlFp, host, depth: 1, source: 'link' };
}

function fetchRow(u: EnqueueUrl): FetchRow {
  return {
    url_fp: u.urlFp,
    url: u.url,
    host: u.host,
    fetched_at: new Date(),
    status: 200,
    error_code: '',
    bytes: 100,
    fetch_ms: 20,
    content_type: 'text/html',
    content_hash: '',
    depth: 1,
    agent_id: 'agent-1',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
  };
}

/** A small filter (one shard) holding 4,000 URLs: about 1 in 150 new links is a false positive. */
async function frontierWithFullFilter(): Promise<Frontier> {
  const prefix = uniquePrefix('seen-confirm');
  prefixes.push(prefix);
  const f = new Frontier(redis, {
    prefix,
    shards: 1,
    leaseMs: 60_000,
    defaultGapMs: 0,
    seen: { mode: 'bloom', expectedUrls: 4000, confirmMax: 1000 },
  });
  const fill = Array.from({ length: 4000 }, (_, i) => ({
    urlFp: link(`fill-${i}`).urlFp,
    host: HOST,
  }));
  await f.markSeen(fill);
  return f;
}

/** `n` links never added that the filter says it has seen (its false positives). */
async function falsePositives(f: Frontier, n: number): Promise<EnqueueUrl[]> {
  const out: EnqueueUrl[] = [];
  for (let batch = 0; out.length < n; batch++) {
    const links = Array.from({ length: 1000 }, (_, i) => link(`new-${batch}-${i}`));
    const seen = await f.seenBatch(links);
    out.push(...links.filter((_, i) => seen[i]));
  }
  return out.slice(0, n);
}

function loopOf(f: Frontier, prefix: string, ingestWaitMs = 5000): SeenConfirmLoop {
  return new SeenConfirmLoop(
    { redis, frontier: f, analytics, prefix, log: createLogger('seen-confirm-test', 'silent') },
    { ingestWaitMs },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seen-confirm-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
}, 60_000);

afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis?.disconnect();
  await analytics?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('seen-set confirmation', () => {
  it('enqueues the false positives once, and never what is queued, leased or fetched', async () => {
    const f = await frontierWithFullFilter();
    const prefix = f.keys.prefix;
    const [fp1, fp2, fetched] = await falsePositives(f, 3);
    const leased = link('leased', 'lease.confirm.test');
    await f.enqueue([leased]);
    const [lease] = await f.lease('agent', 1);
    expect(lease!.urls.map((u) => u.urlFp)).toEqual([leased.urlFp]);
    const queued = link('queued');
    await f.enqueue([queued]);
    // A URL fetched earlier (its queue entry long gone) the filter holds.
    await analytics.insertFetches([fetchRow(fetched!)]);

    // Links to all of them: none is accepted, each is noted.
    const links = [queued, leased, fp1!, fp2!, fetched!];
    expect((await f.enqueue(links)).accepted).toBe(0);
    expect((await f.urls.seenSet.candidateCounts()).waiting).toBe(5);

    const loop = loopOf(f, prefix);
    expect(await loop.runOnce()).toEqual({
      taken: 5,
      malformed: 0,
      inFrontier: 2,
      undecided: 0,
      inUrlTable: 1,
      ingestBehind: 0,
      confirmedNew: 2,
      enqueued: 2,
    });
    expect((await f.hostState(HOST)).queued).toBe(3); // queued, fp1, fp2
    expect(await redis.scard(f.keys.seenConfirmed(0))).toBe(0);

    // Linked again: now queued, so in the frontier — no second entry, no second fetch.
    expect((await f.enqueue([fp1!, fp2!])).accepted).toBe(0);
    expect(await loop.runOnce()).toMatchObject({ taken: 2, inFrontier: 2, confirmedNew: 0 });
    const [next] = await f.lease('agent', 1);
    expect(next!.host).toBe(HOST);
    const fps = next!.urls.map((u) => u.urlFp);
    expect(fps.sort()).toEqual([queued, fp1!, fp2!].map((u) => u.urlFp).sort());
    expect(await loop.runOnce()).toMatchObject({ taken: 0 });
    expect(loop.totals).toMatchObject({ taken: 7, confirmedNew: 2, enqueued: 2 });
  });

  it('leaves candidates seen while the telemetry ingest lags behind the look', async () => {
    const f = await frontierWithFullFilter();
    const prefix = f.keys.prefix;
    const [fp] = await falsePositives(f, 1);
    // An agent's record not stored yet (older than the look): the URL may be in it.
    await redis.xadd(telemetryStreamKey(prefix), '*', 'rows', '[]');
    await f.enqueue([fp!]);
    const loop = loopOf(f, prefix, 300);
    expect(await loop.runOnce()).toMatchObject({ taken: 1, ingestBehind: 1, confirmedNew: 0 });
    expect((await f.hostState(HOST)).queued).toBe(0);
    // Stored (the ingest deletes what it stored): the next candidate of it is confirmed.
    await redis.del(telemetryStreamKey(prefix));
    await f.enqueue([fp!]);
    expect(await loop.runOnce()).toMatchObject({ taken: 1, confirmedNew: 1, enqueued: 1 });
    expect((await f.hostState(HOST)).queued).toBe(1);
  });
});
