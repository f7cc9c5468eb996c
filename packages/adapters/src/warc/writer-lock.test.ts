import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesOfGoneWriters, WarcWriter, writerGone } from './index';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warc-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locks = async (folder: string) =>
  (await readdir(folder)).filter((n) => /^writer-[0-9a-f]+\.lock$/.test(n));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('WARC writer lock', () => {
  it('marks the folder while the writer is open and frees it at close', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'crawl/d/a/run', software: 'c/0.1' });
    const folder = join(dir, 'crawl/d/a/run');
    expect(await locks(folder)).toHaveLength(1);
    expect(await writerGone(folder)).toBe(false);
    await writer.close();
    expect(await locks(folder)).toEqual([]);
    expect(await writerGone(folder)).toBe(true);
  });

  it('takes a folder without a lock, or whose locks are all stale, as left behind', async () => {
    const old = join(dir, 'old');
    await mkdir(old);
    expect(await writerGone(old)).toBe(true); // an older writer kept no lock
    expect(await writerGone(join(dir, 'missing'))).toBe(true);

    // Another machine's writer (its pid means nothing here): judged by the lock's age alone.
    const lock = join(old, 'writer-0a0b0c.lock');
    const body = { pid: 1, machine: 'elsewhere|boot|pid:[1]', startedAt: '2026-01-01T00:00:00Z' };
    await writeFile(lock, JSON.stringify(body));
    expect(await writerGone(old)).toBe(false);
    const past = new Date(Date.now() - 120_000);
    await utimes(lock, past, past);
    expect(await writerGone(old)).toBe(true);
    expect(await writerGone(old, 300_000)).toBe(false);
  });

  it('takes a fresh lock of a process of this machine that is not running as left behind', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'run', software: 'c/0.1' });
    const folder = join(dir, 'run');
    const [name] = await locks(folder);
    const path = join(folder, name!);
    const body = JSON.parse(await readFile(path, 'utf8')) as { pid: number };
    expect(body.pid).toBe(process.pid);
    // The same lock as a crashed process of this machine would have left it, a moment ago.
    await writeFile(path, JSON.stringify({ ...body, pid: await deadPid() }));
    expect(await writerGone(folder)).toBe(true);
    await writer.close();
  });

  it('filters keys by their folder: files of live writers are never picked', async () => {
    const live = await WarcWriter.open({ dir, prefix: 'crawl/d/live/r1', software: 'c/0.1' });
    const done = await WarcWriter.open({ dir, prefix: 'crawl/d/done/r1', software: 'c/0.1' });
    await done.close();
    const gone = filesOfGoneWriters(dir);
    expect(await gone('crawl/d/live/r1/00000.warc.gz')).toBe(false);
    expect(await gone('crawl/d/done/r1/00000.warc.gz')).toBe(true);
    await live.close();
    // A filter judges each folder once; a new one sees the close.
    expect(await gone('crawl/d/live/r1/00000.warc.gz')).toBe(false);
    expect(await filesOfGoneWriters(dir)('crawl/d/live/r1/00000.warc.gz')).toBe(true);
  });
});
