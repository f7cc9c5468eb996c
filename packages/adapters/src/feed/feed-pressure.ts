import type { FeedOverflow, FeedPartitionState } from './feed-retention';

/**
 * Share of the feed's bound (FEED_MAX_BYTES, or FEED_MAX_LEN in a partition) that unread pages
 * may fill before agents stop taking leases (FEED_OVERFLOW=hold). The leases already taken go
 * on publishing, so some room is left for them.
 */
export const FEED_HOLD_SHARE = 0.9;

/** The bound that unread pages are held to. */
export interface FeedLimits {
  /** FEED_MAX_BYTES. */
  maxBytes: number;
  /** FEED_MAX_LEN (per partition). */
  maxLen: number;
  /** FEED_OVERFLOW. */
  overflow: FeedOverflow;
}

/** One consumer group over the whole feed. */
export interface FeedGroupPressure {
  group: string;
  /** Pages it has not acknowledged, all partitions. */
  unreadPages: number;
  pendingPages: number;
  /** Pages it lost: trimmed before it had them, or still unread when it was unregistered. */
  droppedPages: number;
  /** False for a group that is gone but has dropped pages on record. */
  registered: boolean;
}

/** How full the feed is of pages someone has not read, and whether agents must wait. */
export interface FeedPressure {
  /** Pages the feed holds, and the bytes Redis spends on them. */
  pages: number;
  bytes: number;
  /** Pages the slowest group of each partition has not acknowledged, and their bytes. */
  unreadPages: number;
  unreadBytes: number;
  maxBytes: number;
  /** Unread bytes at which agents hold their leasing ({@link FEED_HOLD_SHARE} of maxBytes). */
  holdAtBytes: number;
  overflow: FeedOverflow;
  /** True while agents take no new lease: unread pages are at the bound (`hold` only). */
  hold: boolean;
  /** Every group, the furthest behind first. */
  groups: FeedGroupPressure[];
  /** All groups' dropped pages. */
  droppedPages: number;
}

/**
 * The feed's pressure from each partition's state: a partition's unread pages are those of its
 * slowest group, their bytes that share of the partition's bytes. Agents hold their leasing
 * while unread bytes reach {@link FEED_HOLD_SHARE} of FEED_MAX_BYTES, or a partition's unread
 * entries that share of FEED_MAX_LEN; the coordinator reports the same figure.
 */
export function feedPressure(
  states: readonly FeedPartitionState[],
  limits: FeedLimits,
): FeedPressure {
  let pages = 0;
  let bytes = 0;
  let unreadPages = 0;
  let unreadBytes = 0;
  let entriesFull = false;
  const groups = new Map<string, FeedGroupPressure>();
  const groupOf = (group: string): FeedGroupPressure => {
    let g = groups.get(group);
    if (!g) {
      g = { group, unreadPages: 0, pendingPages: 0, droppedPages: 0, registered: false };
      groups.set(group, g);
    }
    return g;
  };
  for (const s of states) {
    pages += s.length;
    bytes += s.bytes;
    let slowest = 0;
    for (const p of s.groups) {
      const g = groupOf(p.group);
      g.registered = true;
      g.unreadPages += p.unread;
      g.pendingPages += p.pending;
      slowest = Math.max(slowest, p.unread);
    }
    for (const [group, n] of Object.entries(s.dropped)) groupOf(group).droppedPages += n;
    unreadPages += slowest;
    if (s.length > 0) unreadBytes += (s.bytes * slowest) / s.length;
    if (slowest >= FEED_HOLD_SHARE * limits.maxLen) entriesFull = true;
  }
  const holdAtBytes = Math.floor(FEED_HOLD_SHARE * limits.maxBytes);
  const list = [...groups.values()].sort(
    (a, b) => b.unreadPages - a.unreadPages || a.group.localeCompare(b.group),
  );
  return {
    pages,
    bytes,
    unreadPages,
    unreadBytes: Math.round(unreadBytes),
    maxBytes: limits.maxBytes,
    holdAtBytes,
    overflow: limits.overflow,
    hold: limits.overflow === 'hold' && (unreadBytes >= holdAtBytes || entriesFull),
    groups: list,
    droppedPages: list.reduce((n, g) => n + g.droppedPages, 0),
  };
}
