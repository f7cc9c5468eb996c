import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import type { Coordinator } from '../src/coordinator';
import { largestPlainHost, startCrawlStack, type CrawlStack } from './crawl-stack';

// Operators steer a running crawl: a block stops a host's requests at once (even mid-lease),
// a rate-limit change sets its pace within seconds; both judged from the web's request log.
let web: SyntheticWeb;
let stack: CrawlStack;
let coordinator: Coordinator;
let agent: CrawlAgent;
let host: string;

const put = (h: string, body: unknown) =>
  fetch(`${coordinator.url}/v1/hosts/${h}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify(body),
  });
const requestsTo = (h: string) =>
  web
    .log()
    .filter((e) => e.host === h)
    .sort((a, b) => a.startMs - b.startMs);

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 3, hosts: 50, maxPagesPerHost: 400, hostile: false });
  host = largestPlainHost(web);
  stack = await startCrawlStack(web, { CRAWLER_DEFAULT_GAP_MS: '40', CRAWLER_MAX_DEPTH: '20' }, [
    'agent-live',
  ]);
  coordinator = stack.coordinator;
  agent = stack.agents[0]!;
  const seed = web.seeds.find((s) => s.includes(host))!;
  await fetch(`${coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls: [seed] }),
  });
  agent.start();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('live host policies', () => {
  it('a block stops the host at once, mid-lease, and an unblock resumes it', async () => {
    for (let i = 0; i < 100 && requestsTo(host).length < 15; i++) await sleep(100);
    expect(requestsTo(host).length).toBeGreaterThanOrEqual(15);
    const res = await put(host, { blocked: true });
    expect(res.status).toBe(200);
    const blockedAt = performance.timeOrigin + performance.now();
    await sleep(1500);
    // At most the request already under way when the block landed may still start late by a
    // Redis round trip; nothing after that.
    const after = requestsTo(host).filter((e) => e.startMs > blockedAt + 50);
    expect(after.map((e) => e.url)).toEqual([]);
    const host_ = (await (
      await fetch(`${coordinator.url}/v1/hosts/${host}`, { headers: stack.env.auth })
    ).json()) as {
      policy: { blocked: boolean };
      queue_length: number;
    };
    expect(host_.policy.blocked).toBe(true);
    expect(host_.queue_length).toBeGreaterThan(0);

    await put(host, { blocked: false });
    const unblockedAt = performance.timeOrigin + performance.now();
    for (
      let i = 0;
      i < 50 && requestsTo(host).filter((e) => e.startMs > unblockedAt).length < 3;
      i++
    )
      await sleep(100);
    expect(requestsTo(host).filter((e) => e.startMs > unblockedAt).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it('a domain-suffix pattern blocks the hosts under it; a host of its own overrides it', async () => {
    const startsAfter = (t: number) => requestsTo(host).filter((e) => e.startMs > t).length;
    const getHost = async () =>
      (await (
        await fetch(`${coordinator.url}/v1/hosts/${host}`, { headers: stack.env.auth })
      ).json()) as { policy: { blocked: boolean; patterns: string[] } };
    // The first test left the host's own `blocked: false`, which a pattern does not override.
    expect((await put(host, { blocked: null })).status).toBe(200);
    const res = await put(`*.${host}`, { blocked: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'suffix', blocked: true, hosts_updated: 1 });
    const blockedAt = performance.timeOrigin + performance.now();
    await sleep(1500);
    expect(startsAfter(blockedAt + 50)).toBe(0);
    expect((await getHost()).policy).toMatchObject({ blocked: true, patterns: [`*.${host}`] });

    // The host's own setting wins over the pattern's.
    expect((await put(host, { blocked: false })).status).toBe(200);
    const overriddenAt = performance.timeOrigin + performance.now();
    for (let i = 0; i < 50 && startsAfter(overriddenAt) < 3; i++) await sleep(100);
    expect(startsAfter(overriddenAt)).toBeGreaterThanOrEqual(3);

    // Cleared on both: the host is back to the crawl default.
    await put(`*.${host}`, { blocked: null });
    await put(host, { blocked: null });
    expect((await getHost()).policy.blocked).toBe(false);
  });

  it('a rate-limit change sets the host pace within seconds', async () => {
    const res = await put(host, { rate_limit_rps: 2 });
    expect(res.status).toBe(200);
    const changedAt = performance.timeOrigin + performance.now();
    await sleep(3500);
    const later = requestsTo(host).filter((e) => e.startMs > changedAt + 600);
    expect(
      later.length,
      later.map((e) => (e.startMs - changedAt).toFixed(0)).join(' '),
    ).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < later.length; i++) {
      expect(later[i]!.startMs - later[i - 1]!.endMs).toBeGreaterThanOrEqual(500 - 2);
    }
    // And back to the default: the pace picks up again (the request already waiting its
    // 500 ms turn goes first).
    await put(host, { rate_limit_rps: null });
    const resetAt = performance.timeOrigin + performance.now();
    await sleep(2000);
    const resumed = requestsTo(host).filter((e) => e.startMs > resetAt + 600);
    const timeline = resumed
      .map((e) => `${(e.startMs - resetAt).toFixed(0)}:${e.status}`)
      .join(' ');
    expect(resumed.length, timeline).toBeGreaterThanOrEqual(5);
  });

  it('a crawl-settings change reaches the running agent: its User-Agent names the new contact', async () => {
    const contact = 'https://ops.example/crawler-contact';
    const res = await fetch(`${coordinator.url}/v1/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...stack.env.auth },
      body: JSON.stringify({ user_agent_contact: contact }),
    });
    expect(res.status).toBe(200);
    const changedAt = performance.timeOrigin + performance.now();
    const withContact = () =>
      web.log().filter((e) => e.startMs > changedAt && e.ua.includes(`+${contact})`));
    for (let i = 0; i < 50 && withContact().length === 0; i++) await sleep(100);
    expect(withContact().length).toBeGreaterThan(0);
    // Within 5 s, no request carries the old contact any more.
    await sleep(100);
    const settledAt = Math.min(...withContact().map((e) => e.startMs));
    const stale = web.log().filter((e) => e.startMs > settledAt + 50 && !e.ua.includes(contact));
    expect(stale.map((e) => e.ua)).toEqual([]);
    expect(settledAt - changedAt).toBeLessThan(5000);
  });
});
