import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsedPageSchema, pagesStreamKey } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { publishTestPages, testPage, uniquePrefix } from '@crawler/testing';

const PARTITIONS = 4;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let redis: RedisClient;
let dir: string;
const prefixes: string[] = [];
beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  dir = mkdtempSync(join(tmpdir(), 'consume-test-'));
});
afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm run consume -- …` as a child process of its own. */
function consume(prefix: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'scripts/consume.ts', ...args], {
    env: { ...process.env, REDIS_URL, REDIS_PREFIX: prefix, FEED_PARTITIONS: String(PARTITIONS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Whole lines of the output file (a line cut short by a kill is not counted). */
function lines(path: string): string[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').slice(0, -1);
}

/** The url_fps of the pages read by the group and not acknowledged. */
async function pendingOf(prefix: string, group: string): Promise<string[]> {
  const fps: string[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    const key = pagesStreamKey(prefix, p);
    const pending = (await redis.xpending(key, group, '-', '+', 10_000)) as [
      string,
      ...unknown[],
    ][];
    for (const [id] of pending) {
      const [[, fields] = ['', []]] = await redis.xrange(key, id, id);
      const page = parsedPageSchema.parse(JSON.parse(fields[fields.indexOf('page') + 1] ?? ''));
      fps.push(page.url_fp);
    }
  }
  return fps;
}

describe('npm run consume', () => {
  it('killed mid-stream and restarted, misses no page and re-reads at most the unacknowledged ones', async () => {
    const prefix = uniquePrefix('consume');
    prefixes.push(prefix);
    const out = join(dir, 'killed.jsonl');
    const total = 6000;
    // Agents keep publishing the whole time: 60 pages every 15 ms.
    const publishing = (async () => {
      for (let i = 0; i < total; i += 60) {
        await publishTestPages(
          redis,
          { prefix, partitions: PARTITIONS },
          Array.from({ length: 60 }, (_, k) => testPage(i + k)),
        );
        await sleep(15);
      }
    })();
    const args = ['--group', 'archive', '--consumer', 'archiver-1', '--out', out, '--from-start'];
    const first = consume(prefix, [...args, '--batch', '25']);
    const until = Date.now() + 30_000;
    while (lines(out).length < 600) {
      if (Date.now() > until) throw new Error('the consumer wrote nothing');
      await sleep(5);
    }
    first.kill('SIGKILL');
    await exited(first);
    // What the dead consumer had read but not acknowledged: the most it may read twice.
    const unacknowledged = await pendingOf(prefix, 'archive');
    const beforeRestart = lines(out).length;
    expect(beforeRestart).toBeLessThan(total);

    const second = consume(prefix, [...args, '--batch', '25', '--exit-idle-ms', '1500']);
    await publishing;
    expect(await exited(second)).toBe(0);

    const written = lines(out).map((l) => parsedPageSchema.parse(JSON.parse(l)).url_fp);
    const distinct = new Set(written);
    const expected = Array.from({ length: total }, (_, i) => testPage(i).url_fp);
    expect(expected.filter((fp) => !distinct.has(fp))).toEqual([]);
    expect(distinct.size).toBe(total);
    const duplicates = written.length - distinct.size;
    expect(duplicates).toBeLessThanOrEqual(unacknowledged.length);
    const counts = new Map<string, number>();
    for (const fp of written) counts.set(fp, (counts.get(fp) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1).map(([fp]) => fp);
    expect(twice.filter((fp) => !unacknowledged.includes(fp))).toEqual([]);
    expect(await pendingOf(prefix, 'archive')).toEqual([]);
  });

  it('--max stops after exactly N pages; another group reads the same feed on its own', async () => {
    const prefix = uniquePrefix('consume');
    prefixes.push(prefix);
    await publishTestPages(
      redis,
      { prefix, partitions: PARTITIONS },
      Array.from({ length: 250 }, (_, i) => testPage(i)),
    );
    const run = async (args: string[]) => {
      const child = consume(prefix, args);
      let stdout = '';
      child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      expect(await exited(child)).toBe(0);
      return stdout.split('\n').filter(Boolean);
    };
    const a1 = await run(['--group', 'a', '--from-start', '--max', '101', '--batch', '40']);
    expect(a1).toHaveLength(101);
    const b = await run(['--group', 'b', '--from-start', '--exit-idle-ms', '500']);
    expect(b).toHaveLength(250);
    const a2 = await run(['--group', 'a', '--exit-idle-ms', '500']);
    expect(new Set([...a1, ...a2]).size).toBe(250);
    expect(a1.length + a2.length).toBe(250);
  });

  it('--unregister drops a group that will not read again, counting its unread pages', async () => {
    const prefix = uniquePrefix('consume');
    prefixes.push(prefix);
    await publishTestPages(
      redis,
      { prefix, partitions: PARTITIONS },
      Array.from({ length: 120 }, (_, i) => testPage(i)),
    );
    const run = async (args: string[]) => {
      const child = consume(prefix, args);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await exited(child);
      return { code, last: stderr.trim().split('\n').at(-1) ?? '' };
    };
    const read = await run(['--group', 'stale', '--from-start', '--max', '45', '--batch', '15']);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.last)).toMatchObject({ group: 'stale', written: 45, dropped: 0 });
    const gone = await run(['--group', 'stale', '--unregister']);
    expect(gone.code).toBe(0);
    expect(JSON.parse(gone.last)).toEqual({ group: 'stale', unregistered: true, dropped: 75 });
    const groups = await redis.call('XINFO', 'GROUPS', pagesStreamKey(prefix, 0));
    expect(groups).toEqual([]);
    expect((await run(['--group', 'stale', '--unregister'])).code).toBe(1);
    expect((await run(['--group', 'ingest', '--unregister'])).code).toBe(2);
  });
});
