import { describe, expect, it } from 'vitest';
import type { Manifest, RequestLogEntry, SiteInfo } from '../types.js';
import { scoreCrawl } from './score.js';

const site = (
  index: number,
  host: string,
  robots: SiteInfo['robots'],
  robotsTxt: string | null,
): SiteInfo => ({
  index,
  host,
  ip: `127.1.1.${index + 1}`,
  kind: 'normal',
  robots,
  crawlDelayS: null,
  pages: 2,
  features: [],
  robotsTxt,
});

const manifest: Manifest = {
  cycle: 1,
  port: 8080,
  seeds: ['http://a.test:8080/', 'http://b.test:8080/', 'http://c.test:8080/'],
  expected: ['http://a.test:8080/', 'http://a.test:8080/x', 'http://c.test:8080/'],
  sitemaps: [],
  changed: [],
  hosts: [
    site(0, 'a.test', 'ok', 'User-agent: *\nDisallow: /private/\n'),
    site(1, 'b.test', '5xx', null),
    site(2, 'c.test', 'crawl-delay', 'User-agent: *\nCrawl-delay: 0.5\n'),
  ],
};

let seq = 0;
function e(
  host: string,
  target: string,
  startMs: number,
  endMs: number,
  more: Partial<RequestLogEntry> = {},
): RequestLogEntry {
  return {
    seq: ++seq,
    host,
    ip: '127.1.1.1',
    method: 'GET',
    target,
    url: `http://${host}:8080${target}`,
    status: 200,
    bytes: 100,
    ua: 'crawlerbot/1.0',
    conditional: false,
    startMs,
    endMs,
    inflightAtStart: 1,
    aborted: false,
    ...more,
  };
}

const clean = (): RequestLogEntry[] => [
  e('a.test', '/robots.txt', 0, 1),
  e('a.test', '/', 101, 102),
  e('a.test', '/x', 202, 203),
  e('c.test', '/robots.txt', 0, 1),
  e('c.test', '/', 501, 502),
];

const score = (log: RequestLogEntry[], sinceMs?: number) =>
  scoreCrawl({ log, manifest, productToken: 'crawlerbot', minGapMs: 100, sinceMs });

describe('scoreCrawl', () => {
  it('reports full coverage and no violations on a clean log', () => {
    const r = score(clean());
    expect(r).toMatchObject({
      requests: 5,
      pages: 3,
      expected: 3,
      covered: 3,
      coverage: 1,
      missing: [],
      politeness_violations: 0,
      robots_violations: 0,
      duplicate_fetches: 0,
      trap_pages: 0,
      violations: [],
    });
  });

  it('reports missing URLs', () => {
    const r = score(clean().filter((x) => x.target !== '/x'));
    expect(r.covered).toBe(2);
    expect(r.coverage).toBeCloseTo(2 / 3);
    expect(r.missing).toEqual(['http://a.test:8080/x']);
  });

  it('detects concurrent requests to one host', () => {
    const log = clean();
    log.push(e('a.test', '/y', 310, 400), e('a.test', '/z', 350, 450, { inflightAtStart: 2 }));
    const r = score(log);
    // /z both overlaps /y (a gap below zero) and started with two requests open.
    expect(r.violations.map((v) => v.kind).sort()).toEqual(['concurrency', 'gap']);
    expect(r.politeness_violations).toBe(2);
  });

  it('detects short gaps, using the crawl-delay when it is larger', () => {
    const short = clean().map((x) =>
      x.host === 'a.test' && x.target === '/' ? { ...x, startMs: 50, endMs: 51 } : x,
    );
    expect(score(short).violations).toEqual([
      expect.objectContaining({ kind: 'gap', host: 'a.test' }),
    ]);
    const delay = clean().map((x) =>
      x.host === 'c.test' && x.target === '/' ? { ...x, startMs: 200, endMs: 201 } : x,
    );
    expect(score(delay).violations).toEqual([
      expect.objectContaining({ kind: 'gap', host: 'c.test' }),
    ]);
    const tolerated = clean().map((x) =>
      x.host === 'a.test' && x.target === '/' ? { ...x, startMs: 99.5 } : x,
    );
    expect(score(tolerated).politeness_violations).toBe(0);
  });

  it('detects robots violations: not first, 5xx host, disallowed after dot segments', () => {
    const notFirst = [
      e('a.test', '/', 0, 1),
      e('a.test', '/robots.txt', 101, 102),
      e('a.test', '/x', 202, 203),
      e('a.test', '/y', 303, 304), // after robots.txt: fine
    ];
    expect(score(notFirst).violations).toEqual([
      expect.objectContaining({ kind: 'robots-not-first', detail: 'http://a.test:8080/' }),
    ]);
    const noRobots = [e('a.test', '/', 0, 1)];
    expect(score(noRobots).violations).toEqual([
      expect.objectContaining({ kind: 'robots-not-first' }),
    ]);
    const fiveXX = [...clean(), e('b.test', '/robots.txt', 0, 1), e('b.test', '/', 200, 201)];
    expect(score(fiveXX).violations).toEqual([
      expect.objectContaining({ kind: 'robots-5xx', host: 'b.test' }),
    ]);
    const disallowed = [
      ...clean(),
      e('a.test', '/docs/../private/y', 400, 401),
      e('a.test', '/%70rivate/z', 600, 601),
    ];
    const r = score(disallowed);
    expect(r.robots_violations).toBe(2);
    expect(r.violations.every((v) => v.kind === 'robots-disallowed')).toBe(true);
  });

  it('detects duplicate fetches by canonical URL, but not retries after 5xx or aborts', () => {
    const dup = [...clean(), e('a.test', '/x?utm_source=mail#frag', 400, 401)];
    const r = score(dup);
    expect(r.duplicate_fetches).toBe(1);
    expect(r.violations).toEqual([
      expect.objectContaining({ kind: 'duplicate', detail: 'http://a.test:8080/x' }),
    ]);
    const retries = clean().flatMap((x) =>
      x.target === '/x'
        ? [
            { ...x, status: 503 },
            { ...x, startMs: 400, endMs: 401, seq: 100 },
          ]
        : [x],
    );
    expect(score(retries).duplicate_fetches).toBe(0);
    const aborted = clean().flatMap((x) =>
      x.target === '/x'
        ? [
            { ...x, aborted: true },
            { ...x, startMs: 400, endMs: 401, seq: 101 },
          ]
        : [x],
    );
    expect(score(aborted).duplicate_fetches).toBe(0);
  });

  it('does not count the retry of an answer the crawler could not keep (unsettled)', () => {
    const log = [...clean(), e('a.test', '/x', 400, 401)];
    const first = log.find((x) => x.target === '/x')!;
    const r = scoreCrawl({
      log,
      manifest,
      productToken: 'crawlerbot',
      minGapMs: 100,
      unsettled: new Set([first.seq]),
    });
    expect(r.duplicate_fetches).toBe(0);
    expect(score(log).duplicate_fetches).toBe(1);
  });

  it('treats requests before sinceMs as a previous cycle', () => {
    const cycle2 = [
      ...clean(),
      e('a.test', '/', 10_000, 10_001, { conditional: true, status: 304 }),
      e('a.test', '/x', 10_101, 10_102, { conditional: true }),
      e('c.test', '/', 10_000, 10_001, { conditional: true, status: 304 }),
    ];
    const r = score(cycle2, 5_000);
    expect(r).toMatchObject({
      requests: 3,
      covered: 3,
      duplicate_fetches: 0,
      robots_violations: 0,
      politeness_violations: 0,
    });
    expect(score(cycle2).duplicate_fetches).toBe(3);
  });

  it('counts trap pages', () => {
    const traps = [
      ...clean(),
      e('a.test', '/calendar/2024/01', 400, 401),
      e('a.test', '/shop?sid=1', 600, 601),
    ];
    expect(score(traps).trap_pages).toBe(2);
  });
});

describe('scoreCrawl: classes of requests', () => {
  const withFamilies: Manifest = {
    ...manifest,
    expected: [...manifest.expected, 'http://a.test:8080/archive?page=3'],
    sitemaps: ['http://a.test:8080/sitemap.xml'],
    hosts: manifest.hosts.map((h) => (h.host === 'a.test' ? { ...h, features: ['soft-404'] } : h)),
  };
  const crawl = (): RequestLogEntry[] => [
    ...clean(),
    e('a.test', '/archive?page=3', 300, 301),
    e('a.test', '/archive?page=4', 400, 401),
    e('a.test', '/events?month=2024-02', 500, 501),
    e('a.test', '/catalog?size=m&color=red', 600, 601),
    e('a.test', '/x;jsessionid=F00D', 700, 701),
    e('a.test', '/legacy/1234.html', 800, 801),
    e('a.test', '/x?print=1', 900, 901),
    e('a.test', '/x', 1000, 1001),
    e('a.test', '/sitemap.xml', 1100, 1101),
    e('a.test', '/q8z-probe', 1200, 1201),
  ];
  const scoreAll = (log: RequestLogEntry[], durationS?: number) =>
    scoreCrawl({
      log,
      manifest: withFamilies,
      productToken: 'crawlerbot',
      minGapMs: 100,
      durationS,
    });

  it('counts useful, trap (by family), variant (no-op and repeat) and other requests', () => {
    const r = scoreAll(crawl());
    expect(r).toMatchObject({
      pages: 13,
      useful_fetches: 4,
      trap_fetches: 5,
      trap_pages: 5,
      variant_fetches: 2,
      other_fetches: 2,
      probe_fetches: 1,
      variant_by_kind: { noop: 1, repeat: 1 },
      duplicate_fetches: 1,
      useful_pages: 4,
      covered: 4,
    });
    expect(r.trap_by_family).toEqual({
      calendar: 1,
      pager: 1,
      facet: 1,
      session: 1,
      'soft-404': 1,
      loop: 0,
    });
    expect(r.trap_fetch_share).toBeCloseTo(5 / 13);
    expect(r.variant_duplicate_share).toBeCloseTo(2 / 13);
  });

  it('useful_pages_per_s: distinct manifest URLs over the given duration, else the log span', () => {
    expect(scoreAll(crawl(), 2).useful_pages_per_s).toBe(2);
    const fromLog = scoreAll(crawl());
    expect(fromLog.duration_s).toBeCloseTo(1.201);
    expect(fromLog.useful_pages_per_s).toBeCloseTo(4 / 1.201);
    expect(scoreAll([]).useful_pages_per_s).toBe(0);
    expect(scoreAll([]).trap_fetch_share).toBe(0);
  });

  it('reports zero shares on a clean crawl', () => {
    expect(score(clean())).toMatchObject({
      useful_fetches: 3,
      trap_fetches: 0,
      variant_fetches: 0,
      trap_fetch_share: 0,
      variant_duplicate_share: 0,
    });
  });
});
