import type { ReactNode } from 'react';
import { formatBytes, formatCount, formatPercent, formatRate } from '../../lib/format';
import type { CrawlStats } from '../../lib/types/stats';
import { Tile } from '../ui/tile';

function pastDue(stats: CrawlStats, fromSeries: number | undefined): number | null {
  const r = stats.recrawl;
  const share = r?.pastDueShare ?? r?.past_due_share ?? fromSeries;
  return typeof share === 'number' ? share : null;
}

/** The crawl at a glance: the current value of every health figure. */
export function HealthTiles(props: {
  stats: CrawlStats;
  bytesPerS: number | null;
  /** Share of URLs past their re-crawl time, when the series answer carries it. */
  pastDueShare?: number | undefined;
}): ReactNode {
  const { stats, bytesPerS } = props;
  const { fetches, frontier } = stats;
  const due = pastDue(stats, props.pastDueShare);
  return (
    <dl className="tiles">
      <Tile
        label="Pages / s"
        value={formatRate(fetches.pagesPerSecond)}
        detail="last 60 s"
        tone="accent"
      />
      <Tile
        label="Bytes / s"
        value={bytesPerS === null ? '—' : `${formatBytes(bytesPerS)}/s`}
        detail={`${formatBytes(fetches.bytes)} in total`}
      />
      <Tile
        label="Fetched"
        value={formatCount(fetches.total)}
        detail={`${formatCount(fetches.ok)} answered 2xx`}
      />
      <Tile
        label="Errors"
        value={formatCount(fetches.errors)}
        detail={`${formatPercent(fetches.errors, fetches.total)} of fetches`}
        tone={fetches.errors > 0 ? 'danger' : 'default'}
      />
      <Tile label="Frontier" value={formatCount(frontier.queuedUrls)} detail="URLs queued" />
      <Tile
        label="Ready hosts"
        value={formatCount(frontier.readyHosts)}
        detail={`of ${formatCount(frontier.hosts)} hosts`}
      />
      <Tile label="Open leases" value={formatCount(frontier.openLeases)} detail="held by agents" />
      <Tile
        label="Agents alive"
        value={formatCount(stats.agents.alive)}
        detail={stats.agents.alive === 0 ? 'none: start one (npm start)' : 'heartbeat < 15 s'}
        tone={stats.agents.alive === 0 ? 'danger' : 'default'}
      />
      <Tile
        label="Dead letters"
        value={formatCount(frontier.deadLetters)}
        detail="gave up after retries"
        tone={frontier.deadLetters > 0 ? 'danger' : 'default'}
      />
      <Tile
        label="Seeds"
        value={formatCount(stats.seeds.total)}
        detail={`${formatCount(frontier.seenUrls)} URLs seen`}
      />
      <Tile
        label="Past due"
        value={due === null ? '—' : formatPercent(due, 1)}
        detail={due === null ? 'not reported by this coordinator' : 'URLs past their re-crawl time'}
      />
    </dl>
  );
}
