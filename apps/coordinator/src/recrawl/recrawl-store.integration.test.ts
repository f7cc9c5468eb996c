import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from '@crawler/frontier';
import type { FetchRow } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import {
  deleteKeysWithPrefix,
  testRedisBackends,
  uniquePrefix,
  seededRandom,
} from '@crawler/testing';
import { nextInterval, type IntervalBounds } from './change-model';
import { RecrawlStore } from './recrawl-store';

// RecrawlStore.observe runs the change model in a Lua script, one call per shard and batch. It
// is checked here against the model in TypeScript (change-model.ts) applied one row at a time,
// in row order, as the store did before: same meta, same due time, same count, on random
// batches with repeated URLs, every status, absent and present validators.

// An odd initial interval, so halving and 1.5× land on .5 (rounded up), and near bounds.
const bounds: IntervalBounds = { minMs: 3000, maxMs: 20_000, initialMs: 10_001 };

type Meta = Record<string, string | number>;

/** The schedule as the TypeScript model says it should be: url_fp → meta and due time. */
class Reference {
  readonly meta = new Map<string, Meta>();
  readonly due = new Map<string, number>();
  /** Every interval set so far. */
  readonly intervals = new Set<number>();

  observe(rows: readonly FetchRow[]): number {
    let scheduled = 0;
    for (const row of rows) {
      if (row.status === 404 || row.status === 410) {
        this.meta.delete(row.url_fp);
        this.due.delete(row.url_fp);
        continue;
      }
      const captured = (row.status === 200 && row.record_type) || row.status === 304;
      if (!captured || row.url.endsWith('/robots.txt')) continue;
      const old = this.meta.get(row.url_fp);
      const change = row.status === 304 ? 'unchanged' : row.change || 'new';
      const i = nextInterval(old?.i as number | undefined, change, bounds);
      const full = change === 'unchanged' && old?.r ? old : null;
      const meta: Meta = { u: row.url, h: row.host, d: row.depth, i };
      const put = (k: string, v: string | number | undefined) => {
        if (v !== undefined && v !== '') meta[k] = v;
      };
      put('e', row.etag || old?.e);
      put('m', row.last_modified || old?.m);
      put('r', full ? full.r : row.record_id);
      put('t', full ? full.t : row.fetched_at.getTime());
      put('p', full ? full.p : row.payload_digest);
      put('s', row.content_hash || old?.s);
      this.meta.set(row.url_fp, meta);
      this.due.set(row.url_fp, row.fetched_at.getTime() + i);
      this.intervals.add(i);
      scheduled++;
    }
    return scheduled;
  }
}

function randomRows(rand: () => number, count: number, start: number): FetchRow[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const maybe = (v: string) => pick([v, '', undefined]);
  const rows: FetchRow[] = [];
  for (let k = 0; k < count; k++) {
    const u = Math.floor(rand() * 60); // few URLs: repeats within and across batches
    const host = `h${u % 7}.example.com`;
    const status = pick([200, 200, 200, 304, 304, 404, 410, 301, 503, 0]);
    const robots = u % 13 === 0;
    rows.push({
      url_fp: `fp${u}`,
      url: robots ? `https://${host}/robots.txt` : `https://${host}/p/${u}?q="a\\b"&é=/`,
      host,
      fetched_at: new Date(start + k * 10),
      status,
      error_code: '',
      bytes: 1,
      fetch_ms: 1,
      content_type: 'text/html',
      content_hash: pick([`${'ab'.repeat(31)}${String(k % 100).padStart(2, '0')}`, '']),
      depth: u % 5,
      agent_id: 'a',
      warc_key: '',
      warc_offset: 0,
      warc_length: 0,
      redirect_to: '',
      record_type: status === 200 ? pick(['response', 'revisit', '', undefined] as const) : '',
      record_id: maybe(`<urn:uuid:${k}>`),
      payload_digest: maybe(`sha1:D${k}`),
      etag: maybe(`"e/${k}"`),
      last_modified: maybe(`Mon, 0${k % 9} Nov 2026 00:00:00 GMT`),
      change: pick(['', 'new', 'changed', 'changed', 'changed', 'unchanged', undefined] as const),
    });
  }
  return rows;
}

for (const backend of testRedisBackends()) {
  describe.skipIf(backend.skip)(`RecrawlStore.observe on ${backend.name}`, () => {
    let redis: RedisClient;
    const prefixes: string[] = [];
    const open = (shards: number) => {
      const prefix = uniquePrefix('recrawl');
      prefixes.push(prefix);
      const frontier = new Frontier(redis, { prefix, shards });
      return { frontier, store: new RecrawlStore(redis, frontier, bounds) };
    };
    /** What Redis holds, in the Reference's shape. */
    const read = async (frontier: Frontier) => {
      const meta = new Map<string, Meta>();
      const due = new Map<string, number>();
      for (let s = 0; s < frontier.shards; s++) {
        const all = await redis.hgetall(frontier.keys.recrawlMeta(s));
        for (const [fp, raw] of Object.entries(all)) meta.set(fp, JSON.parse(raw) as Meta);
        const scores = await redis.zrange(frontier.keys.recrawlDue(s), '0', '-1', 'WITHSCORES');
        for (let k = 0; k < scores.length; k += 2)
          due.set(scores[k] as string, Number(scores[k + 1]));
      }
      return { meta, due };
    };

    beforeAll(async () => {
      redis = await backend.connect();
    });
    afterAll(async () => {
      for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
      redis.disconnect();
    });

    it('schedules exactly as the change model applied row by row', async () => {
      const { frontier, store } = open(3);
      const ref = new Reference();
      const rand = seededRandom(7);
      let t = 1_796_000_000_000;
      for (let batch = 0; batch < 12; batch++) {
        const rows = randomRows(rand, batch === 5 ? 2500 : 150, t); // one batch over a call's size
        t += 30_000;
        expect(await store.observe(rows)).toBe(ref.observe(rows));
        const got = await read(frontier);
        expect(Object.fromEntries(got.meta)).toEqual(Object.fromEntries(ref.meta));
        expect(Object.fromEntries(got.due)).toEqual(Object.fromEntries(ref.due));
      }
      // Both bounds were reached, and .5 rounded up (10001 / 2, 10001 × 1.5).
      expect([...ref.intervals]).toEqual(
        expect.arrayContaining([bounds.minMs, bounds.maxMs, 5001, 15_002]),
      );
    });

    it('reads the state back and takes due URLs with their validators', async () => {
      const { frontier, store } = open(2);
      const at = new Date(1_796_000_000_000);
      const row = randomRows(seededRandom(1), 1, at.getTime())[0]!;
      const capture: FetchRow = {
        ...row,
        url_fp: 'fpx',
        url: 'https://x.example.com/a/b',
        host: 'x.example.com',
        status: 200,
        record_type: 'response',
        record_id: '<urn:uuid:1>',
        payload_digest: 'sha1:X',
        etag: '"v1"',
        last_modified: '',
        change: 'new',
        content_hash: 'c'.repeat(64),
      };
      expect(await store.observe([capture])).toBe(1);
      // A 304 keeps the validators and the capture it refers to; the interval grows 1.5×.
      const later = new Date(at.getTime() + 5000);
      const revisit: FetchRow = {
        ...capture,
        fetched_at: later,
        status: 304,
        record_type: 'revisit',
        record_id: '<urn:uuid:2>',
        payload_digest: '',
        etag: '',
        content_hash: '',
      };
      expect(await store.observe([revisit])).toBe(1);
      expect(await store.state('x.example.com', 'fpx')).toEqual({
        url: 'https://x.example.com/a/b',
        intervalMs: 15_002,
        dueAt: later.getTime() + 15_002,
        etag: '"v1"',
        lastModified: null,
      });
      const due = await store.takeDue(
        frontier.shardOf('x.example.com'),
        10,
        later.getTime() + 15_002,
      );
      expect(due).toEqual([
        {
          url: 'https://x.example.com/a/b',
          urlFp: 'fpx',
          host: 'x.example.com',
          depth: capture.depth,
          source: 'recrawl',
          prior: {
            etag: '"v1"',
            recordId: '<urn:uuid:1>',
            capturedAt: at.getTime(),
            payloadDigest: 'sha1:X',
            sha256: 'c'.repeat(64),
          },
        },
      ]);
      // A meta that is not of the expected shape counts as none: the URL starts over.
      await redis.hset(frontier.keys.recrawlMeta(frontier.shardOf('x.example.com')), 'fpx', '{');
      expect(await store.observe([{ ...capture, change: 'changed' }])).toBe(1);
      expect((await store.state('x.example.com', 'fpx'))?.intervalMs).toBe(bounds.initialMs);
      // A lone surrogate (JSON that Lua's cjson refuses) is stored as U+FFFD, as Redis would
      // store it as an argument of its own; a backslash before `ud800` is left alone.
      const odd = { ...capture, url: 'https://x.example.com/\\ud800', etag: 'a\ud800b' };
      expect(await store.observe([odd])).toBe(1);
      expect(await store.state('x.example.com', 'fpx')).toMatchObject({
        url: 'https://x.example.com/\\ud800',
        etag: 'a\ufffdb',
      });
      // A 410 drops it.
      expect(await store.observe([{ ...capture, status: 410 }])).toBe(0);
      expect(await store.state('x.example.com', 'fpx')).toBeNull();
    });
  });
}
