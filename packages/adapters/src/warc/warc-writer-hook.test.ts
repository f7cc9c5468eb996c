import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWarcFile, WarcWriter, type HttpExchange } from './index';

function exchange(i: number): HttpExchange {
  return {
    url: `https://example.com/${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i)),
    method: 'GET',
    requestHeaders: [],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'application/octet-stream']],
    body: randomBytes(5_000),
  };
}

/** Process warnings emitted while `run` runs. */
async function warningsDuring(run: () => Promise<void>): Promise<Array<Error & { code?: string }>> {
  const seen: Array<Error & { code?: string }> = [];
  const listener = (w: Error) => seen.push(w);
  process.on('warning', listener);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on next tick
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warc-hook-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('WarcWriter onFileClosed', () => {
  it('hears of every file once it is complete on disk: at each rotation and at close', async () => {
    const calls: Array<{ key: string; path: string; size: number; types: string[] }> = [];
    // The writer does not await the hook; the test keeps its promises to wait for them.
    const running: Array<Promise<void>> = [];
    const writer = await WarcWriter.open({
      dir,
      prefix: 'hook',
      software: 'crawler/0.1.0',
      maxFileBytes: 12_000,
      onFileClosed: (key, path) => {
        const size = stat(path).then((s) => s.size); // at the moment of the call
        const done = (async () => {
          const types: string[] = [];
          for await (const r of readWarcFile(path)) types.push(r.type);
          calls.push({ key, path, size: await size, types });
        })();
        running.push(done);
        return done;
      },
    });
    for (let i = 0; i < 6; i++) await writer.writeExchange(exchange(i));
    expect(running.length).toBeGreaterThan(0); // rotations happened before close
    await writer.close();
    await writer.close(); // idempotent: no second call for the last file
    await Promise.all(running);

    const files = (await readdir(join(dir, 'hook'))).sort();
    expect(calls.map((c) => c.key).sort()).toEqual(files.map((f) => `hook/${f}`));
    for (const call of calls) {
      expect(call.path).toBe(join(dir, call.key));
      expect(call.size).toBe((await stat(call.path)).size);
      expect(call.types[0]).toBe('warcinfo');
      expect(call.types.length % 2).toBe(1); // warcinfo + whole response/request pairs
    }
  });

  it('keeps writing when the hook throws or rejects, reporting a process warning', async () => {
    let calls = 0;
    const warnings = await warningsDuring(async () => {
      const writer = await WarcWriter.open({
        dir,
        prefix: 'failing',
        software: 'crawler/0.1.0',
        maxFileBytes: 6_000,
        onFileClosed: (key) => {
          calls++;
          if (calls % 2 === 1) throw new Error(`sync failure for ${key}`);
          return Promise.reject(new Error(`async failure for ${key}`));
        },
      });
      for (let i = 0; i < 4; i++) await writer.writeExchange(exchange(i));
      await writer.close();
    });
    expect(calls).toBeGreaterThanOrEqual(3);
    const ours = warnings.filter((w) => w.code === 'WARC_FILE_CLOSED_HOOK_FAILED');
    expect(ours).toHaveLength(calls);
    expect(ours.some((w) => w.message.includes('async failure'))).toBe(true);
    const files = await readdir(join(dir, 'failing'));
    expect(files).toHaveLength(calls);
    let records = 0;
    for (const name of files) {
      for await (const r of readWarcFile(join(dir, 'failing', name))) {
        expect(r.digestsOk).toBe(true);
        records++;
      }
    }
    expect(records).toBe(files.length + 4 * 2);
  });
});
