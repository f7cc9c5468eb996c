import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '@crawler/frontier';
import { pagesStreamKey } from '@crawler/domain/messages';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { httpCall } from './http-call';

// The crawl-quality rules on a live crawl of one small host built to trap a naive crawler: a
// calendar linking the next month forever, a print parameter that changes nothing, a soft-404
// catch-all whose pages link more missing pages, a deep pager and a facet explosion.
const HOST = 'quality.test';
const CLOSE_AFTER = 2; // QUALITY_FAMILY_CLOSE_AFTER's default
let server: Server;
let port = 0;
let stack: CrawlStack;
const requests: string[] = [];

const article = (name: string) =>
  `Article ${name}. ` +
  Array.from({ length: 150 }, (_, i) => `${name}${(i * 7919) % 1009}x${i % 13}`).join(' ');

function html(title: string, body: string, links: string[]): string {
  const a = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return `<!doctype html><html><head><title>${title}</title></head><body><main><p>${body}</p>${a}</main></body></html>`;
}

/** The boilerplate every calendar page shares, whatever its URL form. */
const CALENDAR_FILLER =
  'Our events calendar lists talks, meetings and gatherings for members and guests alike. '.repeat(
    5,
  );

function page(path: string): { status: number; body: string } {
  if (path === '/robots.txt') return { status: 200, body: 'User-agent: *\nAllow: /\n' };
  if (path === '/')
    return {
      status: 200,
      body: html('Home', article('home'), [
        '/calendar/2024/01',
        '/doc/a.html',
        '/doc/a.html?print=1',
        '/doc/b.html',
        '/doc/b.html?print=1',
        '/gone/x.html',
        '/list?page=51',
        '/c?a=1&b=2&c=3&d=4&e=5',
        '/private/linked.html',
      ]),
    };
  const cal = /^\/calendar\/(\d{4})\/(\d{2})$/.exec(path);
  if (cal) {
    const [y, m] = [Number(cal[1]), Number(cal[2])];
    const month = (t: number) =>
      `/calendar/${Math.floor(t / 12)}/${String((t % 12) + 1).padStart(2, '0')}`;
    const t = y * 12 + m - 1;
    return {
      status: 200,
      // December pages also link the same calendar under another URL form.
      body: html(`Events ${y}/${m}`, `Events of ${y}/${m}: nothing planned. ${CALENDAR_FILLER}`, [
        month(t + 1),
        month(t - 1),
        '/',
        ...(m === 12 ? [`/events?month=${y + 1}-07`] : []),
      ]),
    };
  }
  const events = /^\/events\?month=(\d{4})-(\d{2})$/.exec(path);
  if (events) {
    // The same calendar under another URL form.
    return {
      status: 200,
      body: html(
        `Events ${events[1]}/${Number(events[2])}`,
        `Events of ${events[1]}/${Number(events[2])}: nothing planned. ${CALENDAR_FILLER}`,
        [`/events?month=${events[1]}-${String(Number(events[2]) + 1).padStart(2, '0')}`, '/'],
      ),
    };
  }
  const list = /^\/list\?page=(\d+)$/.exec(path);
  if (list) {
    const n = Number(list[1]);
    return { status: 200, body: html(`List ${n}`, article(`list${n}`), [`/list?page=${n + 1}`]) };
  }
  const doc = /^\/doc\/([a-z])\.html(\?print=1)?$/.exec(path);
  if (doc) return { status: 200, body: html(`Doc ${doc[1]}`, article(doc[1]!), ['/']) };
  // Anything else: a soft 404 that links more missing pages.
  const notFound =
    'We looked everywhere but this page does not exist. Try the search box or start again from the home page. '.repeat(
      3,
    );
  return {
    status: 200,
    body: html('Page not found', `${notFound} (${path})`, [`/gone/next-${requests.length}.html`]),
  };
}

/** Until the frontier holds nothing for the host (no queued URL, no open lease), or maxMs. */
async function settle(maxMs: number): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < maxMs) {
    await sleep(500);
    const { body } = await httpCall<{ frontier: { queuedUrls: number; openLeases: number } }>(
      stack.coordinator.url,
      'GET',
      '/v1/stats',
      { headers: stack.env.auth },
    );
    if (requests.length > 2 && body.frontier.queuedUrls === 0 && body.frontier.openLeases === 0)
      return;
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const p = page(path);
    res.writeHead(p.status, {
      'content-type': path === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8',
    });
    res.end(p.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  stack = await startCrawlStack(
    { dnsMap: { [HOST]: '127.0.0.1' } },
    {
      CRAWLER_DEFAULT_GAP_MS: '20',
      // Far enough that only the quality rules stop the calendar.
      CRAWLER_MAX_HOPS: '40',
      CRAWLER_MAX_DEPTH: '40',
    },
    ['quality-a'],
  );
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({
      urls: [`http://${HOST}:${port}/`, `http://${HOST}:${port}/private/plan.html`],
    }),
  });
  expect(res.status).toBe(200);
  // A pattern added after the seed was queued: the lease drops it.
  const block = await fetch(`${stack.coordinator.url}/v1/hosts/${HOST}/block-patterns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ pattern: '/private/' }),
  });
  expect(block.status).toBe(200);
  // Agents read the rules every 2 s.
  await sleep(2500);
  stack.agents[0]!.start();
  await settle(60_000);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

const inspect = (path: string) =>
  httpCall<{ verdict: { fetched: boolean; reason: string; detail: string } }>(
    stack.coordinator.url,
    'GET',
    `/v1/urls?url=${encodeURIComponent(`http://${HOST}:${port}${path}`)}`,
    { headers: stack.env.auth },
  );

describe('crawl-quality rules on a live crawl', () => {
  it('closes the calendar after its pages repeat themselves, and says so', async () => {
    const calendar = requests.filter((p) => p.startsWith('/calendar/'));
    // The first month and its two neighbours: both repeat it, so their own links to more months
    // are not followed, and after CLOSE_AFTER repeats the family is closed.
    expect(calendar.sort()).toEqual([
      '/calendar/2023/12',
      '/calendar/2024/01',
      '/calendar/2024/02',
    ]);
    expect(calendar.length).toBe(1 + CLOSE_AFTER);
    const v = (await inspect('/calendar/2030/07')).body.verdict;
    expect(v).toMatchObject({ fetched: false, reason: 'trap' });
    expect(v.detail).toContain('template_exhausted');
    // The same calendar under another URL form is closed at its first page.
    expect(requests.filter((p) => p.startsWith('/events'))).toEqual(['/events?month=2024-07']);
    expect((await inspect('/events?month=2024-08')).body.verdict.detail).toContain(
      'template_exhausted',
    );
    // Two closed families: the host is trap-heavy, its priority class lowered once.
    const hostKey = `${stack.env.config.REDIS_PREFIX}:{${shardOf(HOST, 16)}}:h:${HOST}`;
    expect(await stack.redis.hget(hostKey, 'demoted')).toBe('1');
  });

  it('learns that print=1 changes nothing and stops fetching it', async () => {
    expect(requests).toContain('/doc/a.html');
    expect(requests).toContain('/doc/b.html');
    expect(requests.filter((p) => p.includes('print=1'))).toEqual(['/doc/a.html?print=1']);
    // Shared with other hosts as a prior (their URLs carrying it are queued last).
    const key = `${stack.env.config.REDIS_PREFIX}:quality:noop-params`;
    expect(await stack.redis.zscore(key, 'print')).toBe('1');
  });

  it('probes once for a missing page; pages that answer like it are neither followed nor fed', async () => {
    const probes = requests.filter((p) => /^\/[0-9a-f]{12}-[0-9a-f]{6}\.html$/.test(p));
    expect(probes).toHaveLength(1);
    expect(requests.filter((p) => p === '/gone/x.html')).toHaveLength(1);
    expect(requests.filter((p) => p.startsWith('/gone/next-'))).toEqual([]);
    // The soft 404 is recorded as such once its telemetry is in ClickHouse.
    let reason = '';
    for (let i = 0; i < 50 && reason !== 'soft_404'; i++) {
      reason = (await inspect('/gone/x.html')).body.verdict.reason;
      if (reason !== 'soft_404') await sleep(200);
    }
    expect(reason).toBe('soft_404');
    // Not fed: the parsed-page feed holds the host's real pages, not the soft 404.
    const fed: string[] = [];
    for (let p = 0; p < stack.env.config.FEED_PARTITIONS; p++)
      for (const [, fields] of await stack.redis.xrange(
        pagesStreamKey(stack.env.config.REDIS_PREFIX, p),
        '-',
        '+',
      ))
        fed.push((JSON.parse(fields[1]!) as { url: string }).url);
    expect(fed.some((u) => u.endsWith('/doc/a.html'))).toBe(true);
    expect(fed.filter((u) => u.includes('/gone/'))).toEqual([]);
  });

  it('never steps a pager past its cap nor requests a facet explosion, and counts every rule in the stats', async () => {
    // A numbered page linked from elsewhere is fetched; the pager's step past the cap is not.
    expect(requests.filter((p) => p.startsWith('/list'))).toEqual(['/list?page=51']);
    expect(requests.some((p) => p.startsWith('/c?'))).toBe(false);
    // Agents write their rule counts every 2 s.
    let stats = { quality: {} as Record<string, number> };
    const rules = [
      'pager_depth',
      'facet_explosion',
      'soft_404',
      'template_exhausted',
      'noop_param',
      'blocked_pattern',
    ];
    const pending = () =>
      rules.some((r) => stats.quality[r] === undefined) || stats.quality.blocked_pattern! < 2;
    for (let i = 0; i < 40 && pending(); i++) {
      if (i > 0) await sleep(200);
      stats = (
        await httpCall<{ quality: Record<string, number> }>(
          stack.coordinator.url,
          'GET',
          '/v1/stats',
          { headers: stack.env.auth },
        )
      ).body;
    }
    expect(stats.quality).toMatchObject({
      pager_depth: 1,
      facet_explosion: 1,
      soft_404: 1,
    });
    expect(stats.quality.template_exhausted).toBeGreaterThanOrEqual(1);
    // The operator's pattern, applied to a URL queued before it existed (at its lease) and to the
    // home page's link (at enqueue).
    expect(stats.quality.blocked_pattern).toBe(2);
    expect(requests.some((p) => p.startsWith('/private/'))).toBe(false);
    expect(stats.quality.noop_param).toBeGreaterThanOrEqual(1);
  });

  it('the inspector names the pager step past the cap and the operator pattern', async () => {
    // Page 52 was only ever a link of page 51: judged as that step.
    const pager = (await inspect('/list?page=52')).body.verdict;
    expect(pager).toMatchObject({ fetched: false, reason: 'trap' });
    expect(pager.detail).toContain('pager_depth');
    // Page 51, linked from the home page, was fetched: no pager rule against it.
    expect((await inspect('/list?page=51')).body.verdict.reason).toBe('fetched');
    // Queued before the pattern, dropped at its lease; and a link dropped at enqueue.
    for (const path of ['/private/plan.html', '/private/linked.html']) {
      const blocked = (await inspect(path)).body.verdict;
      expect(blocked).toMatchObject({ fetched: false, reason: 'blocked' });
      expect(blocked.detail).toContain(`/private/ of the policy of ${HOST}`);
    }
  });
});
