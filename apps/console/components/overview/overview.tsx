'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { FIRST_WINDOW } from '../../lib/api/page-inputs';
import type { CrawlStats, StatsSeries, StatsWindow } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { EmptyState } from '../ui/empty-state';
import { FrontierTrend, type FrontierSample } from './frontier-trend';
import { FeedNotice } from './feed-notice';
import { HealthTiles } from './health-tiles';
import { SeriesCharts } from './series-charts';
import { WindowPicker } from './window-picker';

const POLL_MS = 3_000;
const MAX_SAMPLES = 600;

/** Keeps one frontier sample per stats answer, for the since-open trend. */
function useSamples(stats: CrawlStats | null): FrontierSample[] {
  const [samples, setSamples] = useState<FrontierSample[]>([]);
  const last = useRef<string | null>(null);
  useEffect(() => {
    if (!stats || stats.generatedAt === last.current) return;
    last.current = stats.generatedAt;
    const s: FrontierSample = {
      t: Date.parse(stats.generatedAt),
      queued: stats.frontier.queuedUrls,
      ready: stats.frontier.readyHosts,
      leases: stats.frontier.openLeases,
      agents: stats.agents.alive,
    };
    setSamples((prev) => [...prev.slice(-(MAX_SAMPLES - 1)), s]);
  }, [stats]);
  return samples;
}

/** Bytes/s over the last two stats answers (the coordinator reports a running total). */
function useBytesRate(stats: CrawlStats | null): number | null {
  const prev = useRef<{ t: number; bytes: number } | null>(null);
  const [rate, setRate] = useState<number | null>(null);
  useEffect(() => {
    if (!stats) return;
    const now = { t: Date.parse(stats.generatedAt), bytes: stats.fetches.bytes };
    const p = prev.current;
    if (p && now.t > p.t) setRate(Math.max(0, ((now.bytes - p.bytes) * 1000) / (now.t - p.t)));
    prev.current = now;
  }, [stats]);
  return rate;
}

/**
 * The crawl's health, live: current figures every 3 s, charts over the chosen window every
 * 6 s, and the frontier since the page opened.
 */
export function Overview(props: {
  initial?: { stats: Settled<CrawlStats>; series: Settled<StatsSeries> };
}): ReactNode {
  const [span, setSpan] = useState<StatsWindow>(FIRST_WINDOW.window);
  const stats = useQuery(api.stats.get, undefined, {
    pollMs: POLL_MS,
    initial: props.initial?.stats,
  });
  const series = useQuery(
    api.stats.series,
    { window: span },
    { pollMs: POLL_MS * 2, initial: props.initial?.series },
  );
  const samples = useSamples(stats.data);
  const bytesPerS = useBytesRate(stats.data);

  return (
    <div className="overview">
      <div className="toolbar">
        <span
          className={`status-pill status-pill--${stats.error ? 'down' : stats.data ? 'live' : 'idle'}`}
        >
          <span className="status-pill__dot" aria-hidden="true" />
          {stats.error ? 'Disconnected' : stats.data ? 'Live' : 'Connecting…'}
        </span>
        <span className="muted">Refreshes every {POLL_MS / 1000} s</span>
        <span className="toolbar__spacer" />
        <WindowPicker value={span} onChange={setSpan} />
      </div>

      {stats.error && <ErrorBox title="Cannot load crawl stats" error={stats.error} />}
      {stats.loading && <Loading what="crawl stats" />}
      {stats.data && <FeedNotice feed={stats.data.feed} />}
      {stats.data && (
        <section aria-label="Current figures" data-testid="health-tiles">
          <HealthTiles stats={stats.data} bytesPerS={bytesPerS} />
        </section>
      )}
      {stats.data && stats.data.seeds.total === 0 && stats.data.fetches.total === 0 && (
        <EmptyState title="Nothing crawled yet">
          Add a seed URL or a sitemap on the <a href="/seeds">Seeds</a> page; pages/s rises within
          seconds.
        </EmptyState>
      )}

      <h2 className="section-title">Over the last {span}</h2>
      {series.error && <ErrorBox title="Cannot load the charts" error={series.error} />}
      {series.loading && <Loading what="charts" />}
      {series.data && <SeriesCharts series={series.data} />}

      <h2 className="section-title">Frontier and fleet</h2>
      <FrontierTrend samples={samples} />
    </div>
  );
}
