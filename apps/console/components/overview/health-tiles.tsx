import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatBytes, formatCount, formatPercent, formatRate } from '../../lib/format';
import type { CrawlStats } from '../../lib/api/router-types';
import { Tile } from '../ui/tile';

/** "N held by live agents, M by dead ones" (dead: until they expire or are released). */
function leaseHolders(stats: CrawlStats): ReactNode {
  const split = stats.agents.openLeases;
  if (split.dead === 0) return `${formatCount(split.live)} held by live agents`;
  return (
    <>
      {formatCount(split.live)} held by live agents,{' '}
      <Link href="/agents" title="Release them on the Agents page">
        {formatCount(split.dead)} by dead ones
      </Link>
    </>
  );
}

function agentsDetail(stats: CrawlStats): string {
  const { alive, dead } = stats.agents;
  const deadText = `${formatCount(dead)} dead (silent, did not stop)`;
  if (alive === 0) return dead > 0 ? `none; ${deadText}` : 'none: start one (npm start)';
  return dead > 0 ? `heartbeat < 15 s; ${deadText}` : 'heartbeat < 15 s';
}

/** The rules that kept the most URLs out, e.g. "template_exhausted 1,204 · soft_404 31". */
function keptOutDetail(quality: CrawlStats['quality']): string {
  const top = Object.entries(quality)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2);
  if (top.length === 0) return 'by trap and quality rules';
  return top.map(([rule, n]) => `${rule} ${formatCount(n)}`).join(' · ');
}

/** The slowest registered consumer group of the feed, e.g. "slowest: indexer, 1,204 behind". */
function feedDetail(feed: CrawlStats['feed']): string {
  const slowest = feed.groups.find((g) => g.registered);
  const of = `of ${formatBytes(feed.holdAtBytes)}`;
  if (!slowest || slowest.unreadPages === 0) return `${of}; every group caught up`;
  return `${of}; slowest: ${slowest.group}, ${formatCount(slowest.unreadPages)} behind`;
}

/** The crawl at a glance: the current value of every health figure. */
export function HealthTiles(props: { stats: CrawlStats; bytesPerS: number | null }): ReactNode {
  const { stats, bytesPerS } = props;
  const { fetches, frontier } = stats;
  return (
    <dl className="tiles">
      <Tile
        label="Pages / s"
        value={formatRate(fetches.pagesPerSecond)}
        detail={stats.agents.alive === 0 ? 'no agent alive' : 'last 30 s'}
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
      <Tile
        label="Open leases"
        value={formatCount(frontier.openLeases)}
        detail={leaseHolders(stats)}
        tone={stats.agents.openLeases.dead > 0 ? 'danger' : 'default'}
      />
      <Tile
        label="Agents alive"
        value={formatCount(stats.agents.alive)}
        detail={agentsDetail(stats)}
        tone={stats.agents.alive === 0 || stats.agents.dead > 0 ? 'danger' : 'default'}
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
        label="Kept out"
        value={formatCount(Object.values(stats.quality).reduce((a, b) => a + b, 0))}
        detail={keptOutDetail(stats.quality)}
      />
      <Tile
        label="Past due"
        value={formatPercent(stats.recrawl.pastDueShare, 1)}
        detail="URLs past their re-crawl time"
      />
      <Tile
        label="Feed unread"
        value={formatBytes(stats.feed.unreadBytes)}
        detail={feedDetail(stats.feed)}
        tone={stats.feed.leasingHeld || stats.feed.droppedPages > 0 ? 'danger' : 'default'}
      />
    </dl>
  );
}
