import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// A drain does not wait FETCH_TOTAL_TIMEOUT_MS for a server that never answers: after
// AGENT_DRAIN_GRACE_MS the request is abandoned, the agent stops, and the URL is not lost — it
// is back in its host's queue and the next agent requests it again.
const HOST = 'silent.drain.test';
const GRACE_MS = 300;
const requests: string[] = [];
let server: Server;
let stack: CrawlStack;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    requests.push(req.url ?? '');
    // Never answers: only the client's deadline (10 s) or a cut ends the request.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://${HOST}:${(server.address() as AddressInfo).port}/silent`;
  stack = await startCrawlStack(
    { dnsMap: { [HOST]: '127.0.0.1' } },
    {
      AGENT_DRAIN_GRACE_MS: String(GRACE_MS),
      FETCH_TOTAL_TIMEOUT_MS: '10000',
      FETCH_FIRST_BYTE_TIMEOUT_MS: '10000',
      QUALITY_SOFT404_PROBE: 'false',
    },
    ['drain-a', 'drain-b'],
  );
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls: [url] }),
  });
  expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await stack?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

describe('a drain with a request in flight', () => {
  it('abandons it after the grace, and the URL is fetched again by the next agent', async () => {
    const [a, b] = stack.agents as [CrawlAgent, CrawlAgent];
    a.start();
    for (let i = 0; i < 200 && requests.length < 1; i++) await sleep(50);
    expect(requests).toEqual(['/silent']);

    const stoppedAt = performance.now();
    await a.stop();
    const stopMs = performance.now() - stoppedAt;
    expect(stopMs).toBeGreaterThanOrEqual(GRACE_MS - 5);
    expect(stopMs).toBeLessThan(GRACE_MS + 3000);

    // Not done, not failed: queued again, with no dead letter.
    const state = (await (
      await fetch(`${stack.coordinator.url}/v1/hosts/${HOST}`, { headers: stack.env.auth })
    ).json()) as { queue_length: number; leased: boolean };
    expect(state).toMatchObject({ leased: false, queue_length: 1 });

    b.start();
    for (let i = 0; i < 200 && requests.length < 2; i++) await sleep(50);
    expect(requests).toEqual(['/silent', '/silent']);
  }, 60_000);
});
