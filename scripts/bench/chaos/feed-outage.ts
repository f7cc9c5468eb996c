import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosOptions } from './chaos-options';
import type { ChaosStack } from './chaos-stack';
import type { FeedPressure } from '@crawler/adapters/feed';

/** What the feed outage did, for the result line. */
export interface FeedOutage {
  /** Seconds the coordinator was frozen. */
  seconds: number;
  /** Seconds of it the feed held the agents' leasing (sampled once a second). */
  heldS: number;
  /** When the feed first held, in seconds from the freeze (null: never). */
  firstHeldAtS: number | null;
  /** Most unread bytes seen. */
  peakUnreadBytes: number;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/**
 * Issue 22's feed outage: the coordinator frozen (SIGSTOP: its pages ingest stops where it is,
 * batches in hand unacknowledged) for `o.feedOutage.forS` while the agents crawl at full rate,
 * until the feed is full of pages the ingest has not stored and they hold their leasing; then
 * thawed (SIGCONT) and answering again. The feed is sampled from Redis once a second.
 */
export async function runFeedOutage(
  o: ChaosOptions,
  s: ChaosStack,
  readFeed: () => Promise<FeedPressure | null>,
  log: (line: string) => void,
): Promise<FeedOutage | null> {
  if (!o.feedOutage) return null;
  const t0 = performance.now();
  const at = (): number => (performance.now() - t0) / 1000;
  s.coordinator.pause();
  log(`feed outage: coordinator frozen (SIGSTOP) for ${o.feedOutage.forS} s`);
  let heldS = 0;
  let firstHeldAtS: number | null = null;
  let peakUnreadBytes = 0;
  let lastLog = -10;
  while (at() < o.feedOutage.forS) {
    const tick = performance.now();
    const p = await readFeed();
    if (p) {
      peakUnreadBytes = Math.max(peakUnreadBytes, p.unreadBytes);
      if (p.hold) {
        heldS++;
        firstHeldAtS ??= round1(at());
      }
      if (at() - lastLog >= 30) {
        lastLog = at();
        log(
          `[outage ${at().toFixed(0)}s] feed ${p.pages} pages, ${(p.unreadBytes / 1048576).toFixed(1)} MB unread ` +
            `(hold at ${(p.holdAtBytes / 1048576).toFixed(1)} MB)${p.hold ? ': agents hold their leasing' : ''}; ` +
            p.groups.map((g) => `${g.group} ${g.unreadPages} behind`).join(', '),
        );
      }
    }
    await sleep(Math.max(0, 1000 - (performance.now() - tick)));
  }
  await s.coordinator.resume();
  log(
    `feed outage over: coordinator thawed after ${at().toFixed(1)} s; the feed held leasing ` +
      `${heldS} s (first at ${firstHeldAtS ?? '—'} s), peak ${(peakUnreadBytes / 1048576).toFixed(1)} MB unread`,
  );
  return { seconds: o.feedOutage.forS, heldS, firstHeldAtS, peakUnreadBytes };
}
