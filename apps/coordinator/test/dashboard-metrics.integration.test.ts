import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { serveMetrics, type CrawlAgent } from '@crawler/crawl-core';
import { loadConfig } from '@crawler/domain/config';
import { pagesStreamKey, telemetryRowSchema, telemetryStreamKey } from '@crawler/domain/messages';
import { dashboardExpressions, metricNamesOf } from './promql-metric-names';
import { exportedSeries, samplesOf, valueOf, type Sample } from './prometheus-text';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// The Grafana dashboard shows only what the processes export, and the coordinator's /metrics
// (served as main.ts serves it) reports its frontier, ingest, streams and API as they are.
const DASHBOARD = new URL('../../../docker/grafana/dashboards/crawler.json', import.meta.url);
const PROMETHEUS_YML = new URL('../../../docker/prometheus/prometheus.yml', import.meta.url);
const OBSERVABILITY_MD = new URL('../../../docs/OBSERVABILITY.md', import.meta.url);
/** Series Prometheus itself writes for every target. */
const PROMETHEUS_SERIES = ['up'];

let stack: CrawlStack;
let agent: CrawlAgent;
const servers: Server[] = [];
let coordinatorPort: number;
let agentPort: number;

beforeAll(async () => {
  stack = await startCrawlStack({ dnsMap: {} }, {}, ['metrics-agent']);
  agent = stack.agents[0]!;
  // Both registries as the processes build them (Coordinator.start, CrawlAgent.create), served
  // as their main.ts serve them.
  const c = await serveMetrics(stack.coordinator.metrics.registry, 0, '127.0.0.1');
  const a = await serveMetrics(agent.metrics.registry, 0, '127.0.0.1', () => agent.health());
  servers.push(c.server, a.server);
  [coordinatorPort, agentPort] = [c.port, a.port];
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.close();
  await stack?.stop();
});

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('the Grafana dashboard', () => {
  it('names, in every expression, a metric that the agent or the coordinator exports', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: unknown[] };
    const exprs = dashboardExpressions(dashboard);
    expect(exprs.length).toBeGreaterThan(20);
    const exported = new Set([
      ...exportedSeries(await scrape(agentPort)),
      ...exportedSeries(await scrape(coordinatorPort)),
      ...PROMETHEUS_SERIES,
    ]);
    const unknown = exprs.flatMap(({ panel, expr }) => {
      const names = metricNamesOf(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      return names.filter((n) => !exported.has(n)).map((n) => `${panel}: ${n}`);
    });
    expect(unknown).toEqual([]);
  });

  it('has the panels the operators asked for', () => {
    const titles = dashboardExpressions(JSON.parse(readFileSync(DASHBOARD, 'utf8'))).map(
      (e) => e.panel,
    );
    for (const title of [
      'Pages/s',
      'Errors by code',
      'Politeness backoffs',
      'Queued URLs',
      'Hosts',
      'Ingest lag',
      'Rows/s into ClickHouse',
      'Pages/s per agent',
      'API latency p95 by route',
    ])
      expect(titles).toContain(title);
  });

  it('is fed by a Prometheus that scrapes the default metrics ports', () => {
    const yml = readFileSync(PROMETHEUS_YML, 'utf8');
    const defaults = loadConfig({});
    expect(yml).toContain(`'coordinator:${defaults.COORDINATOR_METRICS_PORT}'`);
    expect(yml).toContain(`port: ${defaults.AGENT_METRICS_PORT}`);
  });
});

describe('docs/OBSERVABILITY.md', () => {
  it('lists every crawler metric the agent and the coordinator export, and no other', async () => {
    const typed = (text: string) =>
      [...text.matchAll(/^# TYPE (crawler_\S+) /gm)].map((m) => m[1]!);
    const exported = new Set([
      ...typed(await scrape(agentPort)),
      ...typed(await scrape(coordinatorPort)),
    ]);
    const listed = new Set(
      [...readFileSync(OBSERVABILITY_MD, 'utf8').matchAll(/^\| `(crawler_\w+)`/gm)].map(
        (m) => m[1]!,
      ),
    );
    expect([...exported].sort()).toEqual([...listed].sort());
  });
});

describe("the coordinator's /metrics", () => {
  it('reports the frontier, the ingest, the streams and the API as they are', async () => {
    const { coordinator, env, redis } = stack;
    const prefix = env.config.REDIS_PREFIX;
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${coordinator.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...env.auth },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const seeded = await api('POST', '/v1/seeds', {
      urls: ['http://a.metrics.test/', 'http://a.metrics.test/x', 'http://b.metrics.test/'],
    });
    const host = await api('GET', '/v1/hosts/a.metrics.test');
    const classOf = (status: number) => `${Math.floor(status / 100)}xx`;

    // Two fetches on the telemetry stream, as an agent writes them.
    const row = (n: number) =>
      telemetryRowSchema.parse({
        url_fp: `00000000000000${n}a`,
        url: `http://a.metrics.test/${n}`,
        host: 'a.metrics.test',
        fetched_at: Date.now(),
        status: 200,
        error_code: '',
        bytes: 10,
        fetch_ms: 5,
        content_type: 'text/html',
        content_hash: '',
        depth: 0,
        agent_id: 'metrics-agent',
        warc_key: '',
        warc_offset: 0,
        warc_length: 0,
        redirect_to: '',
      });
    await redis.xadd(telemetryStreamKey(prefix), '*', 'rows', JSON.stringify([row(1), row(2)]));
    // A reader of the feed a minute behind: one entry written 60 s ago, not yet read.
    const feed = pagesStreamKey(prefix, 0);
    await redis.xgroup('CREATE', feed, 'metrics-probe', '0', 'MKSTREAM');
    await redis.xadd(feed, `${Date.now() - 60_000}-1`, 'page', '{}');
    await coordinator.ingest.settle();
    await coordinator.pagesIngest.settle();

    const s: Sample[] = samplesOf(await scrape(coordinatorPort));
    const stats = await coordinator.services.frontier.stats();

    // Frontier sizes, as its stats say.
    expect(stats.queuedUrls).toBe(3);
    expect(valueOf(s, 'crawler_frontier_queued_urls')).toBe(stats.queuedUrls);
    expect(
      valueOf(s, 'crawler_frontier_hosts', { state: 'ready' })! +
        valueOf(s, 'crawler_frontier_hosts', { state: 'waiting' })!,
    ).toBe(stats.scheduledHosts);
    expect(valueOf(s, 'crawler_frontier_known_hosts')).toBe(stats.hosts);
    expect(valueOf(s, 'crawler_frontier_open_leases')).toBe(0);
    expect(valueOf(s, 'crawler_frontier_dead_letters')).toBe(0);
    expect(valueOf(s, 'crawler_frontier_host_backoffs_total')).toBe(0);

    // Rows ingested by table; the feed entry that is no page was refused.
    expect(valueOf(s, 'crawler_ingest_rows_total', { table: 'fetches' })).toBe(2);
    expect(valueOf(s, 'crawler_ingest_rows_total', { table: 'pages' })).toBe(0);
    expect(valueOf(s, 'crawler_ingest_rejected_rows_total', { table: 'pages' })).toBe(1);

    // Backlog and lag per stream and group: the ingest is caught up, the probe a minute behind.
    const telemetry = { stream: 'telemetry', partition: '0', group: 'ingest' };
    expect(valueOf(s, 'crawler_stream_lag_seconds', telemetry)).toBe(0);
    expect(valueOf(s, 'crawler_stream_pending_entries', telemetry)).toBe(0);
    const probe = { stream: 'pages.parsed', partition: '0', group: 'metrics-probe' };
    expect(valueOf(s, 'crawler_stream_unread_entries', probe)).toBe(1);
    expect(valueOf(s, 'crawler_stream_pending_entries', probe)).toBe(0);
    const lag = valueOf(s, 'crawler_stream_lag_seconds', probe)!;
    expect(lag).toBeGreaterThanOrEqual(59);
    expect(lag).toBeLessThan(600);
    expect(valueOf(s, 'crawler_stream_lag_seconds', { ...probe, group: 'ingest' })).toBe(0);
    expect(valueOf(s, 'crawler_stream_entries', { stream: 'pages.parsed', partition: '0' })).toBe(
      1,
    );

    // API latency by route template, method and status class.
    const count = 'crawler_api_request_duration_seconds_count';
    expect(
      valueOf(s, count, {
        route: '/v1/seeds',
        method: 'POST',
        status_class: classOf(seeded.status),
      }),
    ).toBe(1);
    expect(
      valueOf(s, count, {
        route: '/v1/hosts/:host',
        method: 'GET',
        status_class: classOf(host.status),
      }),
    ).toBe(1);

    // Every sample names the coordinator it comes from.
    expect(s.every((x) => x.labels.coordinator === env.config.coordinatorId)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${coordinatorPort}/healthz`)).status).toBe(200);
  });
});
