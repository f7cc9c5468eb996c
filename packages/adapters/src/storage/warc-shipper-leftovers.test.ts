import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesOfGoneWriters, WarcWriter, type HttpExchange } from '../warc';
import { openObjectStore, WarcShipper } from './index';

// Agents sharing one WARC folder: each ships what writers that are gone left behind (any agent
// id), never a file a live writer may still be writing.

function exchange(i: number): HttpExchange {
  return {
    url: `https://example.com/${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i)),
    method: 'GET',
    requestHeaders: [],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/plain']],
    body: randomBytes(2_000),
  };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

let root = '';
let warcDir = '';
let storeDir = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ship-leftovers-'));
  warcDir = join(root, 'warc');
  storeDir = join(root, 'store');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('WarcShipper.watchPending with filesOfGoneWriters', () => {
  it('ships files of closed writers of any agent at once, a live writer’s only after it ends', async () => {
    // Another agent's earlier run, closed without shipping (its store was down).
    const earlier = await WarcWriter.open({
      dir: warcDir,
      prefix: 'crawl/2026-11-30/agent-old/010000-11',
      software: 'c/0.1',
    });
    await earlier.writeExchange(exchange(0));
    await earlier.close();
    // A writer of a third agent still running on the same folder.
    const running = await WarcWriter.open({
      dir: warcDir,
      prefix: 'crawl/2026-11-30/agent-busy/020000-22',
      software: 'c/0.1',
    });
    await running.writeExchange(exchange(1)); // its file 00000 stays open
    const store = openObjectStore({ kind: 'local', dir: storeDir });
    const shipper = new WarcShipper({ store, dir: warcDir, keepLocal: false });
    const queuedLater: number[] = [];
    const first = await shipper.watchPending({
      everyMs: 100,
      filter: () => filesOfGoneWriters(warcDir),
      onQueued: (n) => queuedLater.push(n),
    });
    expect(first).toBe(1);
    await shipper.drain(10_000);
    const old = 'crawl/2026-11-30/agent-old/010000-11/00000.warc.gz';
    const busy = 'crawl/2026-11-30/agent-busy/020000-22/00000.warc.gz';
    expect(await exists(join(storeDir, old))).toBe(true);
    expect(await exists(join(warcDir, old))).toBe(false);
    // Several passes later the live writer's open file is still untouched.
    await sleep(400);
    expect(await exists(join(storeDir, busy))).toBe(false);
    expect(await exists(join(warcDir, busy))).toBe(true);

    // The writer ends (its own shipper gone too): a later pass ships its files.
    await running.close();
    for (let i = 0; i < 50 && !(await exists(join(storeDir, busy))); i++) await sleep(50);
    expect(await exists(join(storeDir, busy))).toBe(true);
    expect(queuedLater.reduce((a, b) => a + b, 0)).toBe(1);
    await shipper.close(10_000);
  });
});
