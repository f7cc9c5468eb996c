import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyntheticWeb, type SiteInfo, type SyntheticWeb } from './index.js';
import { assignHosts, FEATURES, HOSTILE_KINDS, ROBOTS_VARIANTS } from './model/assign.js';
import { PlanCache } from './model/plan.js';
import { httpGet } from './testing/http-get.js';

describe('determinism', () => {
  it('gives the same manifest and byte-identical pages for the same seed', async () => {
    const a = await startSyntheticWeb({ hosts: 60, seed: 7 });
    const ma = a.manifest();
    const pagesA = await Promise.all(
      a.hosts
        .filter((h) => h.kind === 'normal')
        .slice(0, 10)
        .map((h) => httpGet(h.ip, a.port, h.host, '/').then((r) => r.body.toString('latin1'))),
    );
    await a.close();
    const b = await startSyntheticWeb({ hosts: 60, seed: 7, port: a.port });
    const pagesB = await Promise.all(
      b.hosts
        .filter((h) => h.kind === 'normal')
        .slice(0, 10)
        .map((h) => httpGet(h.ip, b.port, h.host, '/').then((r) => r.body.toString('latin1'))),
    );
    expect(b.manifest()).toEqual(ma);
    expect(pagesB).toEqual(pagesA);
    await b.close();
    const c = await startSyntheticWeb({ hosts: 60, seed: 8, port: a.port });
    expect(c.manifest().expected).not.toEqual(ma.expected);
    await c.close();
  });
});

describe('a web of 50 hosts', () => {
  let web: SyntheticWeb;
  const url = (h: SiteInfo, path: string): string => `http://${h.host}:${web.port}${path}`;
  const withFeature = (f: string): SiteInfo => {
    const h = web.hosts.find((x) => x.features.includes(f));
    if (h === undefined) throw new Error(`no host with ${f}`);
    return h;
  };
  const withRobots = (v: string): SiteInfo => {
    const h = web.hosts.find((x) => x.robots === v && x.kind === 'normal');
    if (h === undefined) throw new Error(`no host with robots ${v}`);
    return h;
  };

  beforeAll(async () => {
    web = await startSyntheticWeb({ hosts: 50, seed: 1 });
  });
  afterAll(async () => {
    await web.close();
  });

  it('has every robots variant, feature and hostile kind', () => {
    for (const v of ROBOTS_VARIANTS)
      expect(
        web.hosts.some((h) => h.robots === v),
        v,
      ).toBe(true);
    for (const f of FEATURES)
      expect(
        web.hosts.some((h) => h.features.includes(f)),
        f,
      ).toBe(true);
    for (const k of HOSTILE_KINDS) expect(web.hosts.filter((h) => h.kind === k).length, k).toBe(1);
    const delays = web.hosts.filter((h) => h.crawlDelayS !== null);
    expect(delays.length).toBeGreaterThan(0);
    for (const h of delays) {
      expect(h.crawlDelayS).toBeGreaterThanOrEqual(0.2);
      expect(h.crawlDelayS).toBeLessThanOrEqual(0.5);
      expect(h.pages).toBeLessThanOrEqual(8);
    }
  });

  it('uses distinct loopback addresses, never 127.0.0.1', () => {
    const ips = new Set(Object.values(web.dnsMap));
    expect(ips.size).toBe(50);
    for (const ip of ips) {
      expect(ip).toMatch(/^127\.\d+\.\d+\.\d+$/);
      expect(ip).not.toBe('127.0.0.1');
    }
    expect(web.seeds[3]).toBe(`http://s0003.web.test:${web.port}/`);
  });

  it('obeys robots.txt in expected', () => {
    const m = web.manifest();
    const exp = new Set(m.expected);
    const fiveXX = withRobots('5xx');
    expect(m.expected.some((u) => u.startsWith(url(fiveXX, '/')))).toBe(false);
    const missing = withRobots('missing');
    expect(exp.has(url(missing, '/private/secret-1.html'))).toBe(true);
    const forbidden = withRobots('403');
    expect(exp.has(url(forbidden, '/private/secret-1.html'))).toBe(true);
    for (const v of ['ok', 'bom-crlf', 'redirect', 'other-bot', 'product-token', 'crawl-delay']) {
      const h = withRobots(v);
      expect(exp.has(url(h, '/')), v).toBe(true);
      expect(exp.has(url(h, '/private/secret-1.html')), v).toBe(false);
    }
    const lm = withRobots('longest-match');
    expect(exp.has(url(lm, '/private/open/page-1.html'))).toBe(true);
    expect(exp.has(url(lm, '/shared/doc.html'))).toBe(true);
    const wild = withRobots('wildcards');
    expect(exp.has(url(wild, '/readme.txt'))).toBe(false);
    expect(exp.has(url(wild, '/readme.txt?v=2'))).toBe(true);
    expect(exp.has(url(wild, '/article.html?print=1'))).toBe(false);
    expect(exp.has(url(wild, '/~joe/index.html'))).toBe(false);
    const dots = withFeature('dot-segments');
    expect(exp.has(url(dots, '/private/hidden.html'))).toBe(false);
  });

  it('lists redirects, statuses, duplicates and files, but no traps or sitemaps', () => {
    const m = web.manifest();
    const exp = new Set(m.expected);
    const chain = withFeature('redirect-chain');
    for (const p of ['/old/start.html', '/old/middle.html', '/moved/final.html'])
      expect(exp.has(url(chain, p)), p).toBe(true);
    const long = withFeature('redirect-long');
    for (let i = 1; i <= 5; i++) expect(exp.has(url(long, `/hops/${i}`))).toBe(true);
    expect(exp.has(url(long, '/hops/6'))).toBe(false);
    const loop = withFeature('redirect-loop');
    expect(exp.has(url(loop, '/bounce/a')) && exp.has(url(loop, '/bounce/b'))).toBe(true);
    const statuses = withFeature('statuses');
    for (const p of [
      '/status/missing.html',
      '/status/gone.html',
      '/status/error.html',
      '/status/busy.html',
    ]) {
      expect(exp.has(url(statuses, p)), p).toBe(true);
    }
    const files = withFeature('non-html');
    for (const p of ['/files/report.pdf', '/img/logo.png', '/data/info.json'])
      expect(exp.has(url(files, p)), p).toBe(true);
    const dup = withFeature('duplicates');
    expect(
      m.expected.filter((u) => u.startsWith(url(dup, '/')) && /(copy|near)-of-1\.html$/.test(u)),
    ).toHaveLength(2);
    expect(m.expected.some((u) => /\/calendar\/|\/loop\/|[?&]sid=/.test(u))).toBe(false);
    expect(m.sitemaps.length).toBeGreaterThanOrEqual(6);
    expect(m.sitemaps.some((u) => u.endsWith('.xml.gz'))).toBe(true);
    expect(m.sitemaps.some((u) => exp.has(u))).toBe(false);
    for (const h of web.hosts.filter((x) => x.kind !== 'normal'))
      expect(exp.has(url(h, '/')), h.kind).toBe(true);
    const bomb = web.hosts.find((h) => h.kind === 'gzip-bomb') as SiteInfo;
    expect(exp.has(url(bomb, '/bomb.html'))).toBe(true);
  });

  it('follows a cross-host redirect to an allowed page of another host', () => {
    const cross = withFeature('redirect-cross');
    const exp = new Set(web.manifest().expected);
    expect(exp.has(url(cross, '/go/partner'))).toBe(true);
  });

  it('keeps every tree page within 3 links of its home page and specials within 1', () => {
    const headers = assignHosts(1, 50, 200, true);
    const plans = new PlanCache(1, headers);
    for (const h of headers) {
      if (h.robots === '5xx') continue;
      const plan = plans.get(h.index);
      const depth = new Map<string, number>([['/', 0]]);
      const queue = ['/'];
      for (let i = 0; i < queue.length; i++) {
        const path = queue[i] as string;
        const r = plan.resources.get(path);
        const next = r?.type === 'page' ? r.links : r?.type === 'copy' ? [] : [];
        for (const l of next) {
          if (l.host !== h.index || depth.has(l.path)) continue;
          depth.set(l.path, (depth.get(path) ?? 0) + 1);
          queue.push(l.path);
        }
      }
      for (const [path, r] of plan.resources) {
        if (r.type === 'page' && r.id < 10_000)
          expect(depth.get(path), `${h.host}${path}`).toBeLessThanOrEqual(3);
      }
    }
  });
});
