import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { mountTestTmpfs, type TestTmpfs } from '@crawler/testing';
import {
  readWarcFile,
  readWarcRecordAt,
  WarcError,
  WarcWriter,
  type HttpExchange,
  type WarcLocation,
  type WarcWriterHealth,
} from './index';

// Real disk faults: a 2 MiB tmpfs filled up gives the writer a real ENOSPC.

function exchange(i: number, bytes = 20_000): HttpExchange {
  return {
    url: `https://example.com/${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i % 60)),
    method: 'GET',
    requestHeaders: [],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'application/octet-stream']],
    // Random bytes do not compress: each record takes its size on the disk.
    body: randomBytes(bytes),
  };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    return err instanceof WarcError ? err.code : String(err);
  }
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
}

/** Reads every location back from its file: same record id, digests verified. */
async function expectReadable(dir: string, locs: WarcLocation[]): Promise<void> {
  for (const loc of locs) {
    const rec = await readWarcRecordAt(join(dir, loc.key), loc.offset, loc.length);
    expect(rec.recordId).toBe(loc.recordId);
    expect(rec.digestsOk).toBe(true);
  }
}

let disk: TestTmpfs | null = null;
let dir = '';
afterEach(async () => {
  await disk?.unmount();
  disk = null;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = '';
});

describe('WarcWriter on a full disk', () => {
  it('fails the write, keeps every earlier record, reports ENOSPC, and recovers on a new file', async () => {
    disk = await mountTestTmpfs('2m');
    const closed: string[] = [];
    const health: WarcWriterHealth[] = [];
    const writer = await WarcWriter.open({
      dir: disk.dir,
      prefix: 'crawl/a',
      software: 'crawler/0.1.0',
      retryIntervalMs: 1000,
      onFileClosed: (key) => void closed.push(key),
      onHealthChange: (h) => void health.push(h),
    });
    const before: WarcLocation[] = [];
    for (let i = 0; i < 5; i++) before.push(await writer.writeExchange(exchange(i)));
    const broken = writer.currentKey();

    await disk.fill();
    // Several records in flight when the disk is full: none of them gets a location.
    const failing = await Promise.all(
      [5, 6, 7].map((i) => codeOf(writer.writeExchange(exchange(i)))),
    );
    expect(failing.every((c) => c === 'WARC_WRITE_FAILED' || c === 'WARC_UNAVAILABLE')).toBe(true);
    expect(failing).toContain('WARC_WRITE_FAILED');
    // Right after a failure, writes fail at once without touching the disk.
    expect(await codeOf(writer.writeExchange(exchange(8)))).toBe('WARC_UNAVAILABLE');
    const h = writer.health();
    expect(h.ok).toBe(false);
    expect(!h.ok && h.code).toBe('ENOSPC');
    expect(health).toEqual([h]);
    // The broken file is closed at its last whole record and handed on, like a rotated one.
    expect(closed).toEqual([broken]);
    const types: string[] = [];
    for await (const r of readWarcFile(join(disk.dir, broken))) {
      expect(r.digestsOk).toBe(true);
      types.push(r.type);
    }
    expect(types).toEqual([
      'warcinfo',
      ...Array.from({ length: 5 }, () => ['response', 'request']).flat(),
    ]);
    await expectReadable(disk.dir, before);

    // While the disk stays full, the writer stays unhealthy: its tries to open a file fail.
    await sleep(1500);
    expect(writer.health().ok).toBe(false);
    // The tries wait for room (the broken file's cut gave back a few pages only): no new file.
    expect((await readdir(join(disk.dir, 'crawl/a'))).filter((f) => f.endsWith('.gz'))).toEqual([
      '00000.warc.gz',
    ]);

    // Space is back: the next try opens a new file and the writer is healthy on its own.
    await disk.free();
    await until(() => writer.health().ok, 3000);
    expect(health.map((x) => x.ok)).toEqual([false, true]);
    const after = await writer.writeExchange(exchange(9));
    expect(after.key).toBe('crawl/a/00001.warc.gz');
    await writer.close();
    expect(closed).toEqual([broken, after.key]);
    await expectReadable(disk.dir, [...before, after]);
  });

  it('turns a failure to open the next file at rotation into the same recovery', async () => {
    disk = await mountTestTmpfs('2m');
    const closed: string[] = [];
    const writer = await WarcWriter.open({
      dir: disk.dir,
      prefix: 'rot',
      software: 'crawler/0.1.0',
      maxFileBytes: 30_000,
      retryIntervalMs: 100,
      onFileClosed: (key) => void closed.push(key),
    });
    const first = await writer.writeExchange(exchange(0, 40_000)); // the next write rotates
    await disk.fill();
    expect(await codeOf(writer.writeExchange(exchange(1, 100)))).toBe('WARC_WRITE_FAILED');
    expect(closed).toEqual([first.key]); // closed whole at rotation
    expect(writer.health().ok).toBe(false);
    // The next file, whose warcinfo could not be written, is not left behind.
    expect((await readdir(join(disk.dir, 'rot'))).filter((f) => f.endsWith('.gz'))).toEqual([
      '00000.warc.gz',
    ]);
    await disk.free();
    await until(() => writer.health().ok, 2000);
    const next = await writer.writeExchange(exchange(2));
    expect(next.key).toBe('rot/00001.warc.gz');
    await writer.close();
    await expectReadable(disk.dir, [first, next]);
  });
});

describe('WarcWriter rotation by age', () => {
  it('closes a file once its first record is maxFileAgeMs old; the next write opens a new one', async () => {
    dir = await mkdtemp(join(tmpdir(), 'warc-age-'));
    const closed: Array<{ key: string; size: number }> = [];
    const writer = await WarcWriter.open({
      dir,
      prefix: 'age',
      software: 'crawler/0.1.0',
      maxFileAgeMs: 300,
      onFileClosed: (key, path) => stat(path).then((s) => void closed.push({ key, size: s.size })),
    });
    // A file with no record yet is not closed however old it gets.
    await sleep(500);
    expect(closed).toEqual([]);

    const a = await writer.writeExchange(exchange(0, 100));
    const b = await writer.writeExchange(exchange(1, 100));
    expect(b.key).toBe(a.key);
    await until(() => closed.length === 1, 2000);
    expect(closed[0]!.key).toBe('age/00000.warc.gz');
    const types: string[] = [];
    for await (const r of readWarcFile(join(dir, a.key))) types.push(r.type);
    expect(types).toEqual(['warcinfo', 'response', 'request', 'response', 'request']);

    const c = await writer.writeExchange(exchange(2, 100));
    expect(c.key).toBe('age/00001.warc.gz');
    await writer.close();
    await until(() => closed.length === 2, 2000);
    expect(closed.map((x) => x.key)).toEqual(['age/00000.warc.gz', 'age/00001.warc.gz']);
    await expectReadable(dir, [a, b, c]);
  });
});
