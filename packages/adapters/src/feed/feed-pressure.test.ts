import { describe, expect, it } from 'vitest';
import { FEED_HOLD_SHARE, feedPressure } from './feed-pressure';
import type { FeedPartitionState } from './feed-retention';

function partition(
  partition: number,
  length: number,
  bytes: number,
  groups: Record<string, number>,
  dropped: Record<string, number> = {},
): FeedPartitionState {
  return {
    partition,
    length,
    bytes,
    trimmed: 0,
    more: false,
    groups: Object.entries(groups).map(([group, unread]) => ({
      group,
      pending: 0,
      unread,
      needsFrom: '0-1',
    })),
    dropped,
  };
}

describe('feedPressure', () => {
  const limits = { maxBytes: 1000, maxLen: 1000, overflow: 'hold' as const };

  it("counts each partition's slowest group, at its share of the partition's bytes", () => {
    const p = feedPressure(
      [
        partition(0, 100, 400, { ingest: 10, indexer: 50 }),
        partition(1, 100, 600, { ingest: 80, indexer: 20 }, { gone: 7 }),
      ],
      limits,
    );
    expect(p).toMatchObject({ pages: 200, bytes: 1000, unreadPages: 130, droppedPages: 7 });
    expect(p.unreadBytes).toBe(200 + 480);
    expect(p.holdAtBytes).toBe(FEED_HOLD_SHARE * 1000);
    expect(p.hold).toBe(false);
    expect(p.groups.map((g) => [g.group, g.unreadPages, g.registered])).toEqual([
      ['ingest', 90, true],
      ['indexer', 70, true],
      ['gone', 0, false],
    ]);
  });

  it('holds at 90% of FEED_MAX_BYTES, or of FEED_MAX_LEN in one partition, and never with drop', () => {
    const full = [partition(0, 100, 950, { slow: 95 })];
    expect(feedPressure(full, limits).hold).toBe(true);
    expect(feedPressure(full, { ...limits, overflow: 'drop' }).hold).toBe(false);
    const long = [partition(0, 950, 10, { slow: 900 })];
    expect(feedPressure(long, limits).hold).toBe(true);
    expect(feedPressure([partition(0, 950, 10, { slow: 899 })], limits).hold).toBe(false);
    expect(feedPressure([], limits)).toMatchObject({ hold: false, unreadBytes: 0, groups: [] });
  });
});
