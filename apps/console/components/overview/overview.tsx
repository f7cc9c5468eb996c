'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useApi } from '../../lib/client/use-api';
import type { CrawlStats, StatsSeries, StatsWindow } from '../../lib/types/stats';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { EmptyState } from '../ui/empty-state';
import { FrontierTrend, type FrontierSample } from './frontier-trend';
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

export function Overview(): ReactNode {
  const [span, setSpan] = useState<StatsWindow>('15m');
  const stats = useApi<CrawlStats>('/stats', POLL_MS);
  const series = useApi<StatsSeries>(`/stats/series?window=${span}`, POLL_MS * 2);
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
      {stats.data && (
        <section aria-label="Current figures" data-testid="health-tiles">
          <HealthTiles
            stats={stats.data}
            bytesPerS={bytesPerS}
            pastDueShare={series.data?.past_due_share}
          />
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
