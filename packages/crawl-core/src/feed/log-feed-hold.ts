import type { Logger } from '@crawler/adapters/log';
import type { FeedPressure } from '@crawler/adapters/feed';

const MB = 1024 * 1024;

/**
 * For `PagePublisherOptions.onHoldChange`: a warning naming the groups behind when the agent
 * stops taking leases for the feed, and a line when it takes them again.
 */
export function logFeedHold(log: Logger): (hold: boolean, pressure: FeedPressure) => void {
  return (hold, p) => {
    const fields = {
      unreadMb: Math.round(p.unreadBytes / MB),
      holdAtMb: Math.round(p.holdAtBytes / MB),
      behind: p.groups
        .filter((g) => g.registered && g.unreadPages > 0)
        .slice(0, 5)
        .map((g) => ({ group: g.group, unreadPages: g.unreadPages })),
    };
    if (hold)
      log.warn(
        fields,
        'feed full of pages a consumer group has not read (FEED_MAX_BYTES): no new leases until it reads on',
      );
    else log.info(fields, 'feed has room again; leasing resumes');
  };
}
