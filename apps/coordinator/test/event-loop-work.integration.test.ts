import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { page, startTinyWeb, urlset, type TinyWeb } from './tiny-web';

// The event loop does network, timers and Redis: every response's per-byte work — hashing, WARC
// record building and gzip — runs in the parse workers, for every kind of response (robots.txt,
// pages, 404s, redirects, sitemaps, binaries), not only HTML pages. The test wraps the
// synchronous zlib and hash functions of this thread (the workers have their own) and crawls a
// small web with each kind of response.
const HOST = 'kinds.loop.test';
const KiB = 1024;
/** A call on this many input bytes or more is a body's work, not a URL's or a key's. */
const BODY_BYTES = 2 * KiB;

interface Seen {
  fn: string;
  bytes: number;
  stack: string;
}
const seen: Seen[] = [];
const restore: Array<() => void> = [];

function sizeOf(data: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data);
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** Wraps `obj[name]` so each call on this thread is recorded (its input size and stack). */
function watch(obj: Record<string, unknown>, name: string, bytesOf: (args: unknown[]) => number) {
  const original = obj[name] as (...args: unknown[]) => unknown;
  obj[name] = function (this: unknown, ...args: unknown[]) {
    seen.push({ fn: name, bytes: bytesOf(args), stack: new Error().stack ?? '' });
    return original.apply(this, args);
  };
  restore.push(() => (obj[name] = original));
}

function watchHashes(): void {
  const original = crypto.createHash;
  (crypto as { createHash: typeof crypto.createHash }).createHash = (...args) => {
    const h = original(...args);
    const update = h.update.bind(h);
    h.update = (data: crypto.BinaryLike) => {
      seen.push({
        fn: `createHash(${args[0]})`,
        bytes: sizeOf(data),
        stack: new Error().stack ?? '',
      });
      return update(data);
    };
    return h;
  };
  restore.push(() => ((crypto as { createHash: typeof crypto.createHash }).createHash = original));
  if (typeof (crypto as { hash?: unknown }).hash === 'function')
    watch(crypto, 'hash', (a) => sizeOf(a[1]));
}

let web: TinyWeb;
let stack: CrawlStack;

beforeAll(async () => {
  const filler = 'x'.repeat(8 * KiB);
  const binary = Buffer.alloc(48 * KiB, 7);
  web = await startTinyWeb({
    [HOST]: (path) => {
      const base = `http://${HOST}:${web.port}`;
      switch (path) {
        case '/robots.txt':
          return {
            type: 'text/plain',
            body: `User-agent: *\nDisallow: /private/\n# ${filler}\nSitemap: ${base}/sitemap.xml\n`,
          };
        case '/':
          return page('home', ['/a', '/missing', '/moved', '/file.pdf', '/image.png']);
        case '/a':
          return { body: `${page('a', ['/']).body as string}<!-- ${filler} -->` };
        case '/moved':
          return { status: 301, location: '/a', body: filler };
        case '/sitemap.xml':
          return urlset([`${base}/a`, `${base}/from-sitemap`], `<!-- ${filler} -->`);
        case '/from-sitemap':
          return page('from sitemap');
        case '/file.pdf':
          return { type: 'application/pdf', body: binary };
        case '/image.png':
          return { type: 'image/png', body: Buffer.alloc(40 * KiB, 9) };
        case '/missing':
          return { status: 404, body: `<html><body>not here ${filler}</body></html>` };
        default:
          return null;
      }
    },
  });
  stack = await startCrawlStack(
    web,
    { CRAWLER_DEFAULT_GAP_MS: '20', QUALITY_SOFT404_PROBE: 'false' },
    ['loop-agent'],
  );
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls: [web.url(HOST, '/')] }),
  });
  expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const undo of restore.splice(0).reverse()) undo();
  syncBuiltinESMExports();
  await stack?.stop();
  await web?.close();
});

describe('the event loop does no per-byte work', () => {
  it('archives every kind of response without synchronous gzip or hashing of a body on this thread', async () => {
    const zlibFns = zlib as unknown as Record<string, unknown>;
    for (const fn of ['gzipSync', 'deflateSync', 'deflateRawSync', 'brotliCompressSync'])
      watch(zlibFns, fn, (a) => sizeOf(a[0]));
    watchHashes();
    syncBuiltinESMExports();

    const [agent] = stack.agents;
    agent!.start();
    const want = ['/', '/a', '/missing', '/moved', '/file.pdf', '/image.png', '/sitemap.xml'];
    for (let i = 0; i < 200; i++) {
      await sleep(100);
      const got = new Set(web.requested(HOST));
      if ([...want, '/from-sitemap'].every((p) => got.has(p))) break;
    }
    await agent!.stop();
    for (const undo of restore.splice(0).reverse()) undo();
    syncBuiltinESMExports();

    expect(new Set(web.requested(HOST))).toEqual(
      new Set(['/robots.txt', ...want, '/from-sitemap']),
    );
    // The records of each WARC file's warcinfo are built when the file opens: a few hundred
    // bytes once per file, not per response.
    const perResponse = seen.filter((s) => !s.stack.includes('buildWarcinfo'));
    const gzips = perResponse.filter((s) => s.fn.endsWith('Sync'));
    expect(gzips.map((s) => `${s.fn} ${s.bytes} B\n${s.stack}`)).toEqual([]);
    const bodyHashes = perResponse.filter((s) => !s.fn.endsWith('Sync') && s.bytes >= BODY_BYTES);
    expect(bodyHashes.map((s) => `${s.fn} ${s.bytes} B\n${s.stack}`)).toEqual([]);
    // The wrappers saw this thread's calls (URL fingerprints, at least).
    expect(seen.some((s) => s.fn.startsWith('createHash'))).toBe(true);
  }, 60_000);
});
