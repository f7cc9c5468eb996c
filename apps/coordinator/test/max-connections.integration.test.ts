import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SyntheticWeb } from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// A host an operator allows several connections: requests overlap (each answer takes 80 ms),
// never more than allowed, and their starts stay spaced by the host's rate limit. Judged from
// the server's own log.
const HOST = 'slow.conn.test';
const PAGES = 16;
const LIMIT = 4;
const GAP_MS = 20; // rate_limit_rps 50

interface Hit {
  path: string;
  startMs: number;
  inflightAtStart: number;
}
const hits: Hit[] = [];
// A second host whose second URL fails once (503) while later URLs finish on other connections.
const FAILING_HOST = 'fail.conn.test';
const failingHits = new Map<string, number>();
let server: Server;

/** A page of words of its own (the quality rules would close a family of near-identical pages). */
function distinctPage(path: string): string {
  const words = Array.from({ length: 60 }, (_, i) =>
    createHash('sha256').update(`${path}/${i}`).digest('hex').slice(0, 8),
  );
  return `<title>${path}</title><p>${words.join(' ')}</p>`;
}
let stack: CrawlStack;

beforeAll(async () => {
  let inflight = 0;
  server = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.host?.startsWith(FAILING_HOST)) {
      const path = req.url ?? '';
      const n = (failingHits.get(path) ?? 0) + 1;
      failingHits.set(path, n);
      const fail = path === '/q1' && n === 1;
      setTimeout(
        () =>
          res.writeHead(fail ? 503 : 200, { 'content-type': 'text/html' }).end(distinctPage(path)),
        path === '/q0' ? 300 : fail ? 100 : 80,
      );
      return;
    }
    inflight++;
    hits.push({ path: req.url ?? '', startMs: performance.now(), inflightAtStart: inflight });
    setTimeout(() => {
      inflight--;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title>`);
    }, 80);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const web = {
    dnsMap: { [HOST]: '127.0.0.1', [FAILING_HOST]: '127.0.0.1' },
  } as unknown as SyntheticWeb;
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: '20',
      FRONTIER_BACKOFF_BASE_MS: '200',
      FRONTIER_BACKOFF_MAX_MS: '500',
    },
    ['agent-conn'],
  );
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

/** Allows `host` LIMIT connections at one request per GAP_MS, seeds its `paths`, starts the agent. */
async function crawlWithConnections(host: string, paths: string[]): Promise<void> {
  const { coordinator } = stack;
  const port = (server.address() as AddressInfo).port;
  const headers = { 'content-type': 'application/json', ...stack.env.auth };
  const put = await fetch(`${coordinator.url}/v1/hosts/${host}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ max_connections: LIMIT, rate_limit_rps: 1000 / GAP_MS }),
  });
  expect(put.status).toBe(200);
  const seeds = await fetch(`${coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ urls: paths.map((p) => `http://${host}:${port}${p}`) }),
  });
  expect(seeds.status).toBe(200);
  stack.agents[0]!.start();
}

describe('max_connections', () => {
  it('overlaps requests up to the limit, with starts spaced by the rate limit', async () => {
    await crawlWithConnections(
      HOST,
      Array.from({ length: PAGES }, (_, i) => `/p${i}`),
    );
    // The seeded pages (the host's one soft-404 probe, a random path, is not one of them).
    const pagesHit = () => new Set(hits.map((h) => h.path).filter((p) => /^\/p\d+$/.test(p)));
    for (let i = 0; i < 300 && pagesHit().size < PAGES; i++) await sleep(50);

    expect(pagesHit().size).toBe(PAGES);
    const peak = Math.max(...hits.map((h) => h.inflightAtStart));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(LIMIT);
    const starts = hits.map((h) => h.startMs).sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(GAP_MS - 1);
  });

  it('fails a lease at a failed URL without fetching again the URLs finished on other connections', async () => {
    const paths = Array.from({ length: 8 }, (_, i) => `/q${i}`);
    await crawlWithConnections(FAILING_HOST, paths);
    const frontier = stack.coordinator.services.frontier;
    for (let i = 0; i < 300; i++) {
      await sleep(50);
      if (paths.every((p) => failingHits.has(p)) && (await frontier.isIdle())) break;
    }
    // /q1 failed once and was fetched again; /q2 and /q3, finished on other connections while
    // /q0 was slow and /q1 failed, kept their progress marks through the failed lease.
    expect(Object.fromEntries(paths.map((p) => [p, failingHits.get(p)]))).toEqual(
      Object.fromEntries(paths.map((p) => [p, p === '/q1' ? 2 : 1])),
    );
  });
});
