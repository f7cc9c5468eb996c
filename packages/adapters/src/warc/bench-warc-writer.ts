/**
 * Benchmark: `npx tsx packages/adapters/src/warc/bench-warc-writer.ts [records] [bodyBytes] [gzipLevel]`
 * writes exchanges with HTML-like bodies to a temp folder and prints JSON with CPU and wall
 * time per exchange (one response + one request record).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WarcWriter } from './index';

function htmlLikeBody(bytes: number, seed: number): Uint8Array {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) & 0x7fffffff);
  const words = Array.from({ length: 3000 }, () =>
    next()
      .toString(36)
      .slice(0, 2 + (next() % 8)),
  );
  let html = '<!doctype html><html><head><title>bench</title></head><body>';
  while (html.length < bytes) {
    const word = words[next() % words.length] ?? 'x';
    html +=
      next() % 12 === 0
        ? `</p>\n<p class="c${next() % 9}"><a href="/${word}">${word}</a>`
        : ` ${word}`;
  }
  return new TextEncoder().encode(html.slice(0, bytes));
}

async function main(): Promise<void> {
  const records = Number(process.argv[2] ?? 2000);
  const bodyBytes = Number(process.argv[3] ?? 20_000);
  const gzipLevel = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
  const bodies = Array.from({ length: 50 }, (_, i) => htmlLikeBody(bodyBytes, i + 1));
  const dir = await mkdtemp(join(tmpdir(), 'warc-bench-'));
  try {
    const writer = await WarcWriter.open({
      dir,
      prefix: 'bench',
      software: 'crawler/bench',
      ...(gzipLevel === undefined ? {} : { gzipLevel }),
    });
    const exchange = (i: number) => ({
      url: `https://example.com/p/${i}`,
      fetchedAt: new Date(),
      method: 'GET',
      requestHeaders: [
        ['User-Agent', 'crawlerbot/0.1'],
        ['Accept', 'text/html'],
      ] as Array<[string, string]>,
      httpVersion: '1.1',
      status: 200,
      statusText: 'OK',
      responseHeaders: [
        ['Content-Type', 'text/html'],
        ['Content-Length', String(bodyBytes)],
      ] as Array<[string, string]>,
      body: bodies[i % bodies.length] ?? new Uint8Array(0),
    });
    for (let i = 0; i < 100; i++) await writer.writeExchange(exchange(i)); // warm-up
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let compressed = 0;
    for (let i = 0; i < records; i++)
      compressed += (await writer.writeExchange(exchange(i))).length;
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await writer.close();
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      JSON.stringify({
        bench: 'warc-writer',
        records,
        bodyBytes,
        gzipLevel: gzipLevel ?? 'default',
        cpuMsPerRecord: +(cpuMs / records).toFixed(3),
        wallMsPerRecord: +(wallMs / records).toFixed(3),
        compressionRatio: +(bodyBytes / (compressed / records)).toFixed(2),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
