import { gunzipSync, createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyntheticWeb, type SiteInfo, type SyntheticWeb } from '../index.js';
import { httpGet, type GetOptions, type RawResponse } from '../testing/http-get.js';

describe('serving the synthetic web', () => {
  let web: SyntheticWeb;
  const host = (pred: (h: SiteInfo) => boolean): SiteInfo => {
    const h = web.hosts.find(pred);
    if (h === undefined) throw new Error('no such host');
    return h;
  };
  const get = (h: SiteInfo, path: string, opts?: GetOptions): Promise<RawResponse> =>
    httpGet(h.ip, web.port, h.host, path, opts);

  beforeAll(async () => {
    web = await startSyntheticWeb({ hosts: 50, seed: 1 });
  });
  afterAll(async () => {
    await web.close();
  });

  it('answers 500 for robots.txt of the 5xx host, every time', async () => {
    const h = host((x) => x.robots === '5xx');
    expect((await get(h, '/robots.txt')).status).toBe(500);
    expect((await get(h, '/robots.txt')).status).toBe(500);
    expect(h.robotsTxt).toBeNull();
  });

  it('serves the robots variants', async () => {
    const bom = await get(
      host((x) => x.robots === 'bom-crlf'),
      '/robots.txt',
    );
    expect(bom.body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bom.body.toString('utf8')).toContain('User-agent: *\r\nDisallow: /private/\r\n');
    const redirect = host((x) => x.robots === 'redirect');
    const r = await get(redirect, '/robots.txt');
    expect(r.status).toBe(301);
    const target = await get(redirect, String(r.headers.location));
    expect(target.body.toString()).toBe(redirect.robotsTxt);
    expect(
      (
        await get(
          host((x) => x.robots === 'missing'),
          '/robots.txt',
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await get(
          host((x) => x.robots === '403'),
          '/robots.txt',
        )
      ).status,
    ).toBe(403);
    const delay = host((x) => x.robots === 'crawl-delay');
    expect((await get(delay, '/robots.txt')).body.toString()).toContain(
      `Crawl-delay: ${String(delay.crawlDelayS)}`,
    );
  });

  it('answers 304 to matching conditional GETs', async () => {
    const h = host((x) => x.kind === 'normal' && x.robots === 'ok');
    const first = await get(h, '/');
    expect(first.status).toBe(200);
    const etag = String(first.headers.etag);
    const lm = String(first.headers['last-modified']);
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const inm = await get(h, '/', { headers: { 'If-None-Match': etag } });
    expect(inm.status).toBe(304);
    expect(inm.body.length).toBe(0);
    expect((await get(h, '/', { headers: { 'If-Modified-Since': lm } })).status).toBe(304);
    expect((await get(h, '/', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    const entries = web.log().filter((e) => e.host === h.host && e.target === '/');
    expect(entries.filter((e) => e.conditional).map((e) => e.status)).toEqual([304, 304, 200]);
  });

  it('changes the listed pages in cycle 2 and nothing else', async () => {
    const m1 = web.manifest();
    expect(m1.changed).toEqual([]);
    const changing = web.hosts.filter((h) => h.features.includes('changing'));
    const urls = m1.expected.filter((u) => changing.some((h) => u.startsWith(`http://${h.host}:`)));
    const fetchAll = (): Promise<Array<string | undefined>> =>
      Promise.all(
        urls.map(async (u) => {
          const x = new URL(u);
          const h = host((s) => s.host === x.hostname);
          return (await get(h, `${x.pathname}${x.search}`)).headers.etag;
        }),
      );
    const before = await fetchAll();
    web.setCycle(2);
    try {
      const m2 = web.manifest();
      expect(m2.cycle).toBe(2);
      expect(m2.changed.length).toBeGreaterThan(0);
      expect(m2.changed.length).toBeLessThan(urls.length);
      const after = await fetchAll();
      urls.forEach((u, i) => {
        if (before[i] === undefined) return;
        expect(after[i] !== before[i], u).toBe(m2.changed.includes(u));
      });
    } finally {
      web.setCycle(1);
    }
  });

  it('redirects, fails and retries as planned', async () => {
    const chain = host((x) => x.features.includes('redirect-chain'));
    const a = await get(chain, '/old/start.html');
    expect(a.status).toBe(301);
    expect(a.headers.location).toBe(`http://${chain.host}:${web.port}/old/middle.html`);
    const b = await get(chain, '/old/middle.html');
    expect(b.status).toBe(302);
    expect(
      new URL(String(b.headers.location), `http://${chain.host}/old/middle.html`).pathname,
    ).toBe('/moved/final.html');
    const statuses = host((x) => x.features.includes('statuses'));
    expect((await get(statuses, '/status/gone.html')).status).toBe(410);
    expect((await get(statuses, '/status/missing.html')).status).toBe(404);
    expect((await get(statuses, '/status/error.html')).status).toBe(500);
    const busy = await get(statuses, '/status/busy.html');
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect((await get(statuses, '/status/busy.html')).status).toBe(200);
  });

  it('serves duplicates, files, sitemaps and traps', async () => {
    const dup = host((x) => x.features.includes('duplicates'));
    const copies = web
      .manifest()
      .expected.filter((u) => u.startsWith(`http://${dup.host}:`) && /-of-1\.html$/.test(u));
    const [copy, near] = copies.sort().map((u) => new URL(u).pathname);
    const orig = web
      .manifest()
      .expected.find((u) => u.startsWith(`http://${dup.host}:`) && /[/=]p?1(\.html|\/)?$/.test(u));
    expect(orig).toBeDefined();
    const o = await get(dup, `${new URL(String(orig)).pathname}${new URL(String(orig)).search}`);
    const c = await get(dup, String(copy));
    const n = await get(dup, String(near));
    expect(c.body.equals(o.body)).toBe(true);
    expect(n.body.equals(o.body)).toBe(false);
    const ow = o.body.toString().split(/\s+/);
    const nw = n.body.toString().split(/\s+/);
    expect(nw.length).toBe(ow.length);
    expect(nw.filter((w, i) => w !== ow[i])).toHaveLength(1);
    const files = host((x) => x.features.includes('non-html'));
    expect((await get(files, '/img/logo.png')).headers['content-type']).toBe('image/png');
    expect((await get(files, '/files/report.pdf')).body.subarray(0, 5).toString()).toBe('%PDF-');
    const idx = host((x) => x.features.includes('sitemap-index'));
    const gz = await get(idx, '/sitemaps/part-1.xml.gz');
    expect(gz.headers['content-type']).toBe('application/gzip');
    const listed = [
      ...gunzipSync(gz.body)
        .toString()
        .matchAll(/<loc>([^<]+)<\/loc>/g),
    ].map((x) => String(x[1]).replace(/&amp;/g, '&'));
    expect(listed.length).toBeGreaterThan(0);
    const expected = new Set(web.manifest().expected);
    for (const u of listed) expect(expected.has(String(u)), u).toBe(true);
    expect((await get(idx, '/robots.txt')).body.toString()).toContain(
      `Sitemap: http://${idx.host}:${web.port}/sitemap_index.xml`,
    );
    const cal = host((x) => x.features.includes('trap-calendar'));
    expect((await get(cal, '/calendar/2024/01')).body.toString()).toContain('/calendar/2024/02');
    const session = host((x) => x.features.includes('trap-session'));
    const s1 = (await get(session, '/shop?sid=abc')).body.toString();
    const s2 = (await get(session, '/shop?sid=abc')).body.toString();
    expect(s1).toContain('sid=');
    expect(s1).not.toBe(s2);
  });

  it('logs requests, unknown hosts get 421', async () => {
    const h = host((x) => x.kind === 'normal');
    const unknown = await httpGet(h.ip, web.port, 'nope.web.test', '/x');
    expect(unknown.status).toBe(421);
    await get(h, '/?utm_source=a', { headers: { 'User-Agent': 'crawlerbot/1.0' } });
    const log = web.log();
    const miss = log.find((e) => e.host === 'nope.web.test');
    expect(miss?.status).toBe(421);
    const e = log.find((x) => x.host === h.host && x.target === '/?utm_source=a');
    expect(e).toMatchObject({
      ip: h.ip,
      method: 'GET',
      status: 200,
      ua: 'crawlerbot/1.0',
      inflightAtStart: 1,
      aborted: false,
    });
    expect(e?.url).toBe(`http://${h.host}:${web.port}/?utm_source=a`);
    expect(e?.bytes).toBeGreaterThan(1000);
    expect(e?.endMs).toBeGreaterThan(e?.startMs ?? Infinity);
    const seqs = log.map((x) => x.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('counts concurrent requests per host', async () => {
    const h = host((x) => x.kind === 'trickle');
    const slow = get(h, '/trickle.html', { abortAfterMs: 300 });
    await new Promise((r) => setTimeout(r, 50));
    await get(h, '/');
    await slow;
    await new Promise((r) => setTimeout(r, 50));
    const home = web.log().find((e) => e.host === h.host && e.target === '/');
    expect(home?.inflightAtStart).toBe(2);
    const trickle = web.log().find((e) => e.host === h.host && e.target === '/trickle.html');
    expect(trickle?.aborted).toBe(true);
    expect(trickle?.bytes).toBeLessThan(5);
  });

  it('serves the hostile resources', async () => {
    const huge = host((x) => x.kind === 'huge-page');
    const head = await get(huge, '/huge.html', { maxBytes: 100_000 });
    expect(head.headers['content-length']).toBe(String(20 * 1024 * 1024));
    const bomb = host((x) => x.kind === 'gzip-bomb');
    const b = await get(bomb, '/bomb.html');
    expect(b.headers['content-encoding']).toBe('gzip');
    expect(b.body.length).toBeLessThan(2_000_000);
    const inflated = await new Promise<number>((resolve) => {
      let n = 0;
      const g = createGunzip();
      g.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 50_000_000) {
          g.destroy();
          resolve(n);
        }
      });
      g.end(b.body);
    });
    expect(inflated).toBeGreaterThan(50_000_000);
    const hdr = host((x) => x.kind === 'huge-headers');
    const big = await get(hdr, '/big-headers.html', { maxHeaderSize: 1024 * 1024 });
    expect(String(big.headers['x-huge']).length).toBe(32 * 1024);
    const broken = await get(
      host((x) => x.kind === 'malformed'),
      '/broken.html',
    );
    expect(broken.body.includes(Buffer.from([0xff, 0xfe, 0x00]))).toBe(true);
  });

  it('delays the first byte of the slow host by 2 s', async () => {
    const slow = host((x) => x.kind === 'slow');
    const r = await get(slow, '/');
    expect(r.status).toBe(200);
    expect(r.firstByteMs).toBeGreaterThanOrEqual(1900);
    expect((await get(slow, '/robots.txt')).firstByteMs).toBeLessThan(1000);
  });
});
