import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { largestPlainHost, startCrawlStack, type CrawlStack } from './crawl-stack';

// The stop rule: an agent stopped in the middle of a lease starts no request after the stop,
// gives the lease's unstarted URLs back to the frontier at once (without sitting out the host's
// gap), and the next agent leases and fetches them — each exactly once.
const GAP_MS = 1000;
const SEEDED = 12;
let web: SyntheticWeb;
let stack: CrawlStack;
let host: string;
let urls: string[];
let seeded: Set<string>;

const now = () => performance.timeOrigin + performance.now();
const pageRequests = () =>
  web
    .log()
    .filter((e) => seeded.has(e.url))
    .sort((a, b) => a.startMs - b.startMs);

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 5, hosts: 20, maxPagesPerHost: 200, hostile: false });
  host = largestPlainHost(web);
  // Pages of one host, seeded together so that one lease holds them all.
  urls = web
    .manifest()
    .expected.filter((u) => new URL(u).hostname === host)
    .slice(0, SEEDED);
  expect(urls.length).toBe(SEEDED);
  seeded = new Set(urls);
  stack = await startCrawlStack(web, { CRAWLER_DEFAULT_GAP_MS: String(GAP_MS) }, [
    'stop-a',
    'stop-b',
  ]);
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls }),
  });
  expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('stopping an agent mid-lease', () => {
  it('returns the unstarted URLs at once; the next agent fetches each of them once', async () => {
    const [a, b] = stack.agents as [CrawlAgent, CrawlAgent];
    a.start();
    for (let i = 0; i < 200 && pageRequests().length < 3; i++) await sleep(50);
    expect(pageRequests().length).toBeGreaterThanOrEqual(3);
    expect(a.activeLeases).toBeGreaterThanOrEqual(1);

    // Stop while the lease waits for the host's next turn (the gap is 1 s).
    const stoppedAt = now();
    await a.stop();
    const stopMs = now() - stoppedAt;
    const byA = pageRequests();
    // No request started after the stop, and the stop did not sit out the host's gap.
    expect(byA.filter((e) => e.startMs > stoppedAt).map((e) => e.url)).toEqual([]);
    expect(stopMs).toBeLessThan(GAP_MS);
    expect(byA.length).toBeLessThan(SEEDED);

    // The unstarted URLs are back in the host's queue (beside links found on the fetched pages)
    // and the host is not held by a lease.
    const state = (await (
      await fetch(`${stack.coordinator.url}/v1/hosts/${host}`, { headers: stack.env.auth })
    ).json()) as { queue_length: number; leased: boolean };
    expect(state.leased).toBe(false);
    expect(state.queue_length).toBeGreaterThanOrEqual(SEEDED - byA.length);

    // The next agent fetches the rest, none of them twice.
    b.start();
    for (let i = 0; i < 600 && pageRequests().length < SEEDED; i++) await sleep(50);
    const all = pageRequests();
    expect(all.length).toBe(SEEDED);
    expect(new Set(all.map((e) => e.url)).size).toBe(SEEDED);
    expect(all.slice(byA.length).every((e) => e.startMs > stoppedAt + stopMs)).toBe(true);
  }, 60_000);
});
