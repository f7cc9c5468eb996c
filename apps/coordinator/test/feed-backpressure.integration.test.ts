import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedConsumer } from '@crawler/adapters/feed';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { samplesOf, valueOf } from './prometheus-text';

// A crawl held back by a registered consumer group that does not read: with FEED_MAX_BYTES at
// its least (1 MiB) the agent takes no new lease once the group's unread pages reach 90% of it,
// GET /v1/stats and both /metrics say so and name the group; once it reads, leasing resumes,
// and every page is both in the group's hands and in ClickHouse `pages`, none dropped. Real
// Postgres, Redis and embedded ClickHouse.
let web: SyntheticWeb;
let stack: CrawlStack;

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 11, hosts: 30, maxPagesPerHost: 60, hostile: false });
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: '20',
      FEED_MAX_BYTES: String(1024 * 1024),
      AGENT_MAX_HOSTS: '64',
      FETCH_TOTAL_TIMEOUT_MS: '4000',
    },
    ['feed-agent'],
  );
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

interface FeedStats {
  leasingHeld: boolean;
  unreadBytes: number;
  holdAtBytes: number;
  droppedPages: number;
  groups: { group: string; unreadPages: number; registered: boolean }[];
}

describe('the feed holding the crawl back', () => {
  it('stops leasing while a group lags at the bound, resumes when it reads, and loses no page', async () => {
    const { coordinator, env, redis, agents } = stack;
    const agent = agents[0]!;
    const config = env.config;
    const indexer = new FeedConsumer(redis, {
      prefix: config.REDIS_PREFIX,
      partitions: config.FEED_PARTITIONS,
      group: 'indexer',
      consumer: 'indexer-1',
      fromStart: true,
    });
    await indexer.start();
    const seeded = await fetch(`${coordinator.url}/v1/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...env.auth },
      body: JSON.stringify({ urls: web.seeds }),
    });
    expect(seeded.status).toBe(200);
    agent.start();

    await until('the agent to hold its leasing', () => agent.feedHoldsLeasing, 90_000);
    await until('its leases to end', () => agent.activeLeases === 0, 30_000);
    // Held: no lease and no fetch for 3 s while the frontier has work.
    const fetched = agent.counters.fetched;
    await sleep(3000);
    expect(agent.activeLeases).toBe(0);
    expect(agent.counters.fetched).toBe(fetched);
    expect((await coordinator.services.frontier.stats()).queuedUrls).toBeGreaterThan(0);

    const res = await fetch(`${coordinator.url}/v1/stats`, { headers: env.auth });
    const { feed } = (await res.json()) as { feed: FeedStats };
    expect(feed.leasingHeld).toBe(true);
    expect(feed.unreadBytes).toBeGreaterThanOrEqual(feed.holdAtBytes);
    expect(feed.groups[0]).toMatchObject({ group: 'indexer', registered: true });
    expect(feed.droppedPages).toBe(0);
    const c = samplesOf(await coordinator.metrics.registry.metrics());
    expect(valueOf(c, 'crawler_feed_leasing_held')).toBe(1);
    expect(valueOf(c, 'crawler_feed_group_unread_pages', { group: 'indexer' })).toBe(
      feed.groups[0]!.unreadPages,
    );
    expect(valueOf(c, 'crawler_feed_group_unread_pages', { group: 'ingest' })).toBe(0);
    const a = samplesOf(await agent.metrics.registry.metrics());
    expect(valueOf(a, 'crawler_feed_holding_leases')).toBe(1);

    // The indexer reads on: leasing resumes (the agent then drains, publishing what it holds).
    const read = new Set<string>();
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const batch = await indexer.read({ count: 200 });
        for (const p of batch.pages) read.add(`${p.page.url_fp}|${p.page.fetched_at}`);
        await indexer.ack([...batch.pages, ...batch.rejected]);
        if (batch.pages.length === 0) await sleep(50);
      }
    })();
    await until('fetching to resume', () => agent.counters.fetched >= fetched + 100, 60_000);
    await agent.stop();
    await coordinator.pagesIngest.settle();
    await until('the indexer to read everything', () => indexer.caughtUp(), 30_000);
    reading = false;
    await reader;

    const stored = await coordinator.services.analytics.queryJson<{ k: string }>(
      "SELECT concat(url_fp, '|', toString(toUnixTimestamp64Milli(fetched_at))) AS k FROM pages FINAL",
    );
    expect(read.size).toBeGreaterThan(200);
    expect(stored.map((r) => r.k).sort()).toEqual([...read].sort());
    expect(await indexer.dropped()).toBe(0);
    expect(indexer.trimmed).toBe(0);
    const after = samplesOf(await coordinator.metrics.registry.metrics());
    expect(valueOf(after, 'crawler_feed_leasing_held')).toBe(0);
  }, 300_000);
});
