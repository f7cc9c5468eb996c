import type { ReactNode } from 'react';
import { formatBytes, formatCount } from '../../lib/format';
import type { CrawlStats } from '../../lib/api/router-types';

/** Unread feed bytes past this share of the hold level get a warning before agents hold. */
const NEAR_SHARE = 0.75;

type Feed = CrawlStats['feed'];

/** "indexer (12,040 pages behind)", the groups furthest behind first. */
function behind(feed: Feed): string {
  const groups = feed.groups.filter((g) => g.registered && g.unreadPages > 0).slice(0, 3);
  if (groups.length === 0) return 'a consumer group';
  return groups.map((g) => `${g.group} (${formatCount(g.unreadPages)} pages behind)`).join(', ');
}

/**
 * The console's warning about the `pages.parsed` feed: agents holding their leasing because a
 * registered consumer group has not read the pages the feed may hold, the feed nearing that,
 * or pages some group lost. Nothing when all is well.
 */
export function FeedNotice(props: { feed: Feed }): ReactNode {
  const { feed } = props;
  const lost = feed.groups.filter((g) => g.droppedPages > 0);
  const near = feed.overflow === 'hold' && feed.unreadBytes >= NEAR_SHARE * feed.holdAtBytes;
  if (!feed.leasingHeld && !near && lost.length === 0) return null;
  const level = `${formatBytes(feed.unreadBytes)} unread of ${formatBytes(feed.holdAtBytes)}`;
  return (
    <div className="notice notice--danger" role="alert" data-testid="feed-notice">
      {feed.leasingHeld ? (
        <p>
          <strong>Crawling is held back.</strong> The parsed-page feed holds {level}: agents take no
          new lease until {behind(feed)} reads on. A group that will not come back:{' '}
          <code>npm run consume -- --group NAME --unregister</code>.
        </p>
      ) : (
        near && (
          <p>
            <strong>The parsed-page feed is filling up</strong> ({level}, where agents stop taking
            leases): {behind(feed)}.
          </p>
        )
      )}
      {lost.length > 0 && (
        <p>
          Pages dropped from the feed before they were read:{' '}
          {lost.map((g) => `${g.group} ${formatCount(g.droppedPages)}`).join(', ')}.
        </p>
      )}
    </div>
  );
}
