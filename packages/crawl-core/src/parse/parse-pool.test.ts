import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePage, type ParsePageInput } from './parse-page';
import { createParsePool, ParsePoolError, type ParsePool } from './parse-pool';
import { samplePage } from './sample-pages';

const encode = (html: string): Uint8Array => new TextEncoder().encode(html);

function input(i: number, body: Uint8Array): ParsePageInput {
  return {
    url: `https://example.com/p/${i}`,
    body,
    contentType: i % 3 === 0 ? 'text/html; charset=utf-8' : 'text/html',
    xRobotsTag: i % 7 === 0 ? 'crawlerbot: noindex' : null,
    productToken: 'crawlerbot',
  };
}

/** Resolves with the rejection of `p` (fails the test if `p` resolves). */
async function rejection(p: Promise<unknown>): Promise<ParsePoolError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ParsePoolError);
    return err as ParsePoolError;
  }
  throw new Error('expected a rejection');
}

describe('createParsePool', () => {
  let pool: ParsePool;

  beforeAll(async () => {
    pool = createParsePool({ threads: 2 });
    // Warm both workers: each loads tsx, htmlparser2 and the parser once.
    await Promise.all([0, 1].map((i) => pool.parse(input(i, encode('<p>warm</p>')))));
  });

  afterAll(async () => {
    await pool.close();
  });

  it('parses 200 pages concurrently, equal to in-process parsePage, moving the bodies', async () => {
    const bodies = Array.from({ length: 200 }, (_, i) => encode(samplePage(i, 8_000 + i * 600)));
    const expected = bodies.map((body, i) => parsePage(input(i, body)));
    const t0 = performance.now();
    const results = await Promise.all(bodies.map((body, i) => pool.parse(input(i, body))));
    const ms = performance.now() - t0;
    expect(results).toEqual(expected);
    expect(results[7]?.robots.noindex).toBe(true);
    // Transferred, not copied: the caller's views are detached.
    expect(bodies.every((b) => b.byteLength === 0)).toBe(true);
    expect(pool.running).toBe(0);
    expect(pool.queued).toBe(0);
    console.log(`parse pool: 200 pages (8–128 KB) in ${Math.round(ms)} ms on 2 threads`);
  });

  it('reports the in-process and pooled cost of 80 KB pages (figures logged)', async () => {
    const pages = Array.from({ length: 40 }, (_, i) => encode(samplePage(1000 + i)));
    const inputs = pages.map((body, i) => input(i, body));
    for (const page of inputs.slice(0, 5)) parsePage(page);
    let t0 = performance.now();
    for (const page of inputs) parsePage(page);
    const inProcessUs = ((performance.now() - t0) / inputs.length) * 1000;
    t0 = performance.now();
    const elu0 = performance.eventLoopUtilization();
    await Promise.all(inputs.map((page) => pool.parse(page, { transfer: false })));
    const elu = performance.eventLoopUtilization(elu0);
    const pooledUs = ((performance.now() - t0) / inputs.length) * 1000;
    const mainThreadUs = (elu.active / inputs.length) * 1000;
    console.log(
      `parsePage 80 KB: ${Math.round(inProcessUs)} µs in-process; through the pool ` +
        `${Math.round(pooledUs)} µs/page wall (2 threads), ` +
        `${Math.round(mainThreadUs)} µs/page of event-loop time`,
    );
    // transfer: false leaves the caller's bytes alone.
    expect(pages.every((b) => b.byteLength > 0)).toBe(true);
  });

  it('keeps the event loop responsive while a 10 MB page parses', async () => {
    const body = encode(samplePage(99, 10 * 1024 * 1024));
    let maxLagMs = 0;
    let ticks = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxLagMs = Math.max(maxLagMs, now - last - 10);
      last = now;
      ticks++;
    }, 10);
    try {
      const t0 = performance.now();
      const page = await pool.parse(input(1, body));
      const parseMs = performance.now() - t0;
      expect(page.textTruncated).toBe(true);
      expect(ticks).toBeGreaterThanOrEqual(Math.floor(parseMs / 10 / 2));
      console.log(
        `10 MB page: ${Math.round(parseMs)} ms in the pool, ${ticks} timer ticks, ` +
          `max lag ${maxLagMs.toFixed(1)} ms`,
      );
    } finally {
      clearInterval(timer);
    }
    expect(maxLagMs).toBeLessThan(50);
  });

  it('abandons a parse past its timeout and replaces the worker', async () => {
    const slow = createParsePool({ threads: 1 });
    try {
      const big = input(1, encode(samplePage(5, 10 * 1024 * 1024)));
      const err = await rejection(slow.parse(big, { timeoutMs: 20 }));
      expect(err.reason).toBe('timeout');
      // The next parse waits for the replacement worker, then succeeds.
      const relaxed = await slow.parse(input(2, encode('<p>still alive</p>')));
      expect(relaxed.text).toBe('still alive');
    } finally {
      await slow.close();
    }
  });

  it('a timeout retires the thread: tasks queued behind it settle (parsed or worker_failed), later ones parse', async () => {
    const pool = createParsePool({ threads: 1 });
    try {
      const big = pool.parse(input(1, encode(samplePage(5, 10 * 1024 * 1024))), { timeoutMs: 20 });
      const behind = Array.from({ length: 8 }, (_, i) =>
        pool.parse(input(10 + i, encode(`<p>page ${i}</p>`))).then(
          (p) => p.text,
          (err: unknown) => (err instanceof ParsePoolError ? err.reason : 'other'),
        ),
      );
      expect((await rejection(big)).reason).toBe('timeout');
      for (const [i, outcome] of (await Promise.all(behind)).entries())
        expect([`page ${i}`, 'worker_failed']).toContain(outcome);
      expect((await pool.parse(input(99, encode('<p>after</p>')))).text).toBe('after');
    } finally {
      await pool.close();
    }
  });

  it('reports a worker that runs out of memory as worker_failed, and recovers', async () => {
    // The streaming parse reads a 10 MB page within 32 MB of heap; 24 MB is too little for it,
    // yet room for a worker to start (a fresh worker capped at 16 MB could run out while it
    // loads its modules on a loaded machine, before any page).
    const tight = createParsePool({ threads: 1, maxHeapMb: 24 });
    try {
      const big = input(1, encode(samplePage(6, 10 * 1024 * 1024)));
      expect((await rejection(tight.parse(big))).reason).toBe('worker_failed');
      expect((await tight.parse(input(2, encode('<p>recovered</p>')))).text).toBe('recovered');
    } finally {
      await tight.close();
    }
  });

  it('close() refuses queued parses and terminates the workers', async () => {
    const small = createParsePool({ threads: 1, tasksPerThread: 1 });
    const first = small.parse(input(1, encode(samplePage(1))));
    const queued = small.parse(input(2, encode(samplePage(2))));
    expect(small.queued).toBe(1);
    const closing = small.close();
    expect((await rejection(queued)).reason).toBe('closed');
    expect((await first).title).toBe('Page 1 & friends');
    await closing;
    expect(small.threads).toBe(0);
    expect((await rejection(small.parse(input(3, encode('<p>x</p>'))))).reason).toBe('closed');
    await small.close();
  });

  it('works under `node --import tsx` too (how the agent runs)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parse-pool-'));
    try {
      const script = join(dir, 'main.mts');
      const poolModule = fileURLToPath(new URL('./parse-pool.ts', import.meta.url));
      await writeFile(
        script,
        `import { createParsePool } from ${JSON.stringify(poolModule)};\n` +
          `const pool = createParsePool({ threads: 1 });\n` +
          `const body = new TextEncoder().encode('<title>t</title><p>hello from tsx');\n` +
          `const page = await pool.parse({ url: 'https://e.com/', body, contentType: 'text/html', xRobotsTag: null });\n` +
          `await pool.close();\n` +
          `console.log(JSON.stringify({ text: page.text, threads: pool.threads }));\n`,
      );
      const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
        cwd: repoRoot,
        timeout: 60_000,
      });
      expect(JSON.parse(stdout)).toEqual({ text: 'hello from tsx', threads: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
