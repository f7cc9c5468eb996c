import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  readWarcRecordFromStore,
  WarcError,
  WarcWriter,
  type HttpExchange,
  type WarcLocation,
  type WarcWriterOptions,
} from '@crawler/adapters/warc';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import {
  openObjectStore,
  StorageError,
  WarcShipper,
  type ObjectStore,
  type ShipFailedEvent,
  type ShippedEvent,
  type WarcShipperOptions,
} from './index';
import { startTestS3Server, type TestS3Server } from '@crawler/testing';

let server: TestS3Server;
let dir = '';
let prefix = '';
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await startTestS3Server();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warc-shipper-'));
  // One bucket for the file: a unique prefix per test keeps their objects apart.
  prefix = `crawl/${randomBytes(4).toString('hex')}/agent-1`;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

function s3(endpoint = server.endpoint): ObjectStore {
  return openObjectStore({
    kind: 's3',
    endpoint,
    bucket: server.bucket,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    maxAttempts: 2,
    retryBaseDelayMs: 1,
  });
}

/** A shipper with fast retries whose events are collected; closed after the test. */
function shipper(store: ObjectStore, extra: Partial<WarcShipperOptions> = {}) {
  const shipped: ShippedEvent[] = [];
  const failed: ShipFailedEvent[] = [];
  const s = new WarcShipper({
    store,
    dir,
    retryBaseDelayMs: 5,
    maxRetryDelayMs: 50,
    onShipped: (e) => shipped.push(e),
    onShipFailed: (e) => failed.push(e),
    ...extra,
  });
  cleanups.push(() => s.close(1000));
  return { s, shipped, failed };
}

/** Incompressible bodies, so a few exchanges fill an 8 kB file. */
const bodies = Array.from({ length: 8 }, (_, i) =>
  new TextEncoder().encode(`<p>page ${i} ${randomBytes(3000).toString('base64')}</p>`),
);

function exchange(i: number): HttpExchange {
  return {
    url: `https://example.com/page/${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i)),
    method: 'GET',
    requestHeaders: [['User-Agent', 'crawlerbot/0.1']],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/html']],
    body: bodies[i % bodies.length] ?? new Uint8Array(),
  };
}

/** Writes `count` exchanges through a writer rotating at 8 kB, then closes it. */
async function writeFiles(
  count: number,
  extra: Partial<WarcWriterOptions> = {},
): Promise<WarcLocation[]> {
  const writer = await WarcWriter.open({
    dir,
    prefix,
    software: 'crawler-test/0.1',
    maxFileBytes: 8_000,
    ...extra,
  });
  const locations: WarcLocation[] = [];
  for (let i = 0; i < count; i++) locations.push(await writer.writeExchange(exchange(i)));
  await writer.close();
  return locations;
}

/** Files under `dir` whose names end with `suffix`, as keys, sorted. */
async function localFiles(suffix: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

async function storedKeys(store: ObjectStore, under = prefix): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of store.list(`${under}/`)) keys.push(entry.key);
  return keys;
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A TCP pass-through to the S3 test server that can be taken down (connections refused, open
 * ones cut) and brought back on the same port: an object store that goes away and returns.
 */
async function startGate(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let listener: Server | null = null;
  let gatePort = 0;
  const up = async () => {
    listener = createServer((client) => {
      const upstream = connect(Number(port), hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    const l = listener;
    await new Promise<void>((resolve) => l.listen(gatePort, '127.0.0.1', resolve));
    gatePort = (l.address() as AddressInfo).port;
  };
  const down = async () => {
    const l = listener;
    listener = null;
    for (const socket of sockets) socket.destroy();
    if (l) await new Promise<void>((resolve) => l.close(() => resolve()));
  };
  await up();
  cleanups.push(down);
  return { endpoint: `http://127.0.0.1:${gatePort}`, up, down };
}

describe('WarcShipper with the S3 store', () => {
  it('uploads every file the writer closes (rotations and close), readable by (key, offset, length)', async () => {
    const store = s3();
    const { s, shipped, failed } = shipper(store);
    const locations = await writeFiles(8, { onFileClosed: s.onFileClosed });
    expect(await s.drain(20_000)).toBe(true);

    const files = await localFiles('.warc.gz');
    expect(files.length).toBeGreaterThan(2);
    expect(await storedKeys(store)).toEqual(files);
    expect(await localFiles('.warc.gz.shipped')).toEqual(files.map((f) => `${f}.shipped`));
    expect(shipped.map((e) => e.key).sort()).toEqual(files);
    expect(shipped.every((e) => !e.inPlace && e.attempts === 1)).toBe(true);
    for (const e of shipped) expect(e.bytes).toBe((await stat(join(dir, e.key))).size);
    expect(failed).toEqual([]);

    for (const [i, loc] of locations.entries()) {
      const record = await readWarcRecordFromStore(store, loc.key, loc.offset, loc.length);
      expect(record.recordId).toBe(loc.recordId);
      expect(record.type).toBe('response');
      expect(record.digestsOk).toBe(true);
      expect(Buffer.from(record.payload).equals(Buffer.from(bodies[i]!))).toBe(true);
      // warcio alone, on the same ranged read.
      const member = await store.readRange(loc.key, loc.offset, loc.length);
      const parsed = await WARCParser.parse([member], { keepHeadersCase: true });
      expect(parsed?.warcPayloadDigest).toBe(loc.payloadDigest);
      expect(await parsed?.contentText()).toBe(new TextDecoder().decode(bodies[i]));
    }
  });

  it('reads records from the store with stable errors for a missing key or a wrong offset', async () => {
    const store = s3();
    const { s } = shipper(store);
    const [loc] = await writeFiles(1, { onFileClosed: s.onFileClosed });
    expect(await s.drain(20_000)).toBe(true);
    if (!loc) throw new Error('nothing written');

    const missing = readWarcRecordFromStore(store, `${prefix}/99999.warc.gz`, 0, 10);
    await expect(missing).rejects.toBeInstanceOf(StorageError);
    await expect(missing).rejects.toMatchObject({ code: 'STORAGE_NOT_FOUND' });
    const shifted = readWarcRecordFromStore(store, loc.key, loc.offset + 1, loc.length - 1);
    await expect(shifted).rejects.toBeInstanceOf(WarcError);
    await expect(shifted).rejects.toMatchObject({ code: 'WARC_BAD_RECORD' });
  });

  it('keeps every file through a store outage and ships them all when the store is back', async () => {
    const gate = await startGate(server.endpoint);
    await gate.down();
    const { s, failed } = shipper(s3(gate.endpoint));
    // Writing goes on while every upload fails.
    const locations = await writeFiles(6, { onFileClosed: s.onFileClosed });
    const files = await localFiles('.warc.gz');
    expect(files.length).toBeGreaterThan(1);
    expect(new Set(locations.map((l) => l.key)).size).toBe(files.length);

    // Every file has been tried (and failed) at least once, yet nothing is dropped.
    await until(() => new Set(failed.map((e) => e.key)).size === files.length);
    expect(await s.drain(100)).toBe(false);
    expect(s.pending().sort()).toEqual(files);
    expect(await localFiles('.shipped')).toEqual([]);
    expect(failed.length).toBeGreaterThanOrEqual(files.length);
    for (const e of failed) {
      expect(e.error).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(e.retryInMs).toBeGreaterThan(0);
    }

    await gate.up();
    expect(await s.drain(20_000)).toBe(true);
    expect(await storedKeys(s3())).toEqual(files);
    expect(await localFiles('.shipped')).toEqual(files.map((f) => `${f}.shipped`));
    for (const loc of locations) {
      const record = await readWarcRecordFromStore(s3(), loc.key, loc.offset, loc.length);
      expect(record.digestsOk && record.recordId === loc.recordId).toBe(true);
    }
  });

  it('on close with the store down, leaves files local and unmarked; the next run ships them', async () => {
    const gate = await startGate(server.endpoint);
    await gate.down();
    const first = shipper(s3(gate.endpoint));
    await writeFiles(4, { onFileClosed: first.s.onFileClosed });
    const files = await localFiles('.warc.gz');

    const { unshipped } = await first.s.close(200);
    expect(unshipped.sort()).toEqual(files);
    expect(await localFiles('.shipped')).toEqual([]);

    // The next process: the store is back, and pending files are shipped before writing.
    await gate.up();
    const next = shipper(s3(gate.endpoint));
    expect(await next.s.shipPending()).toBe(files.length);
    expect(await next.s.drain(20_000)).toBe(true);
    expect(await storedKeys(s3())).toEqual(files);
    expect(await next.s.shipPending()).toBe(0);
  });

  it('ships what an earlier run left unshipped, skipping marked files and keys the filter rejects', async () => {
    const own = prefix;
    await writeFiles(6); // no hook: a run that died before shipping anything
    const ownFiles = await localFiles('.warc.gz');
    prefix = own.replace(/agent-1$/, 'agent-2');
    await writeFiles(2);
    const [alreadyShipped, ...toShip] = ownFiles;
    if (!alreadyShipped) throw new Error('nothing written');
    await writeFile(join(dir, `${alreadyShipped}.shipped`), '{}\n');

    const store = s3();
    const { s, shipped } = shipper(store);
    const queued = await s.shipPending({ filter: (key) => key.startsWith(`${own}/`) });
    expect(queued).toBe(toShip.length);
    expect(await s.drain(20_000)).toBe(true);
    expect(await storedKeys(store, own)).toEqual(toShip);
    expect(await storedKeys(store, prefix)).toEqual([]);
    expect(shipped.map((e) => e.key)).toEqual(toShip);
    expect(await s.shipPending({ filter: (key) => key.startsWith(`${own}/`) })).toBe(0);
  });

  it('with keepLocal false removes shipped files but keeps markers, so numbers are not reused', async () => {
    const store = s3();
    const { s } = shipper(store, { keepLocal: false });
    await writeFiles(6, { onFileClosed: s.onFileClosed });
    expect(await s.drain(20_000)).toBe(true);

    const markers = await localFiles('.shipped');
    const keys = markers.map((m) => m.slice(0, -'.shipped'.length));
    expect(keys.length).toBeGreaterThan(1);
    expect(await localFiles('.warc.gz')).toEqual([]);
    expect(await storedKeys(store)).toEqual(keys);

    const again = await WarcWriter.open({ dir, prefix, software: 'crawler-test/0.1' });
    expect(again.currentKey()).toBe(`${prefix}/${String(keys.length).padStart(5, '0')}.warc.gz`);
    await again.close();
  });
});

describe('WarcShipper with a local store', () => {
  it('does nothing when the store is the writer’s own folder (never removes the only copy)', async () => {
    const store = openObjectStore({ kind: 'local', dir });
    const { s, shipped, failed } = shipper(store, { keepLocal: false });
    const locations = await writeFiles(4, { onFileClosed: s.onFileClosed });
    expect(await s.drain(20_000)).toBe(true);

    const files = await localFiles('.warc.gz');
    expect(files.length).toBeGreaterThan(1);
    expect(await localFiles('.shipped')).toEqual([]);
    expect(shipped.map((e) => e.key).sort()).toEqual(files);
    expect(shipped.every((e) => e.inPlace)).toBe(true);
    expect(failed).toEqual([]);
    expect(await s.shipPending()).toBe(0);
    for (const loc of locations) {
      const record = await readWarcRecordFromStore(store, loc.key, loc.offset, loc.length);
      expect(record.digestsOk && record.recordId === loc.recordId).toBe(true);
    }
  });

  it('copies into a local store on another folder, readable by (key, offset, length)', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'warc-shipper-store-'));
    cleanups.push(() => rm(elsewhere, { recursive: true, force: true }));
    const store = openObjectStore({ kind: 'local', dir: elsewhere });
    const { s } = shipper(store);
    const locations = await writeFiles(4, { onFileClosed: s.onFileClosed });
    expect(await s.drain(20_000)).toBe(true);

    const files = await localFiles('.warc.gz');
    expect(await storedKeys(store)).toEqual(files);
    expect(await localFiles('.shipped')).toHaveLength(files.length);
    for (const [i, loc] of locations.entries()) {
      const record = await readWarcRecordFromStore(store, loc.key, loc.offset, loc.length);
      expect(record.digestsOk).toBe(true);
      expect(Buffer.from(record.payload).equals(Buffer.from(bodies[i]!))).toBe(true);
    }
  });

  it('rejects bad options with STORAGE_BAD_OPTIONS', () => {
    const store = openObjectStore({ kind: 'local', dir });
    expect(() => new WarcShipper({ store, dir, retryBaseDelayMs: 0 })).toThrow(
      expect.objectContaining({ code: 'STORAGE_BAD_OPTIONS' }),
    );
  });
});
