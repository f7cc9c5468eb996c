/** ms in one day. */
const DAY_MS = 86_400_000;

/** Recrawl priority tier: 0 is the highest. */
export type RecrawlTier = 0 | 1 | 2 | 3;

/**
 * Recrawl priority tier from a sitemap `lastmod`, by its age at `now`: changed within the last
 * day (24 h) → 0, within 7 days → 1, within 30 days or unknown → 2, older → 3. Bounds are
 * inclusive (exactly 24 h old is still 0). A lastmod up to one day in the future counts as
 * "just changed" (clock skew); one further ahead is not believable and counts as unknown
 * (2), so a site cannot buy top priority with future dates. An invalid Date is unknown.
 */
export function priorityFromLastmod(lastmod: Date | null, now: Date): RecrawlTier {
  if (lastmod === null) return 2;
  const ageMs = now.getTime() - lastmod.getTime();
  if (Number.isNaN(ageMs)) return 2;
  if (ageMs < -DAY_MS) return 2;
  if (ageMs <= DAY_MS) return 0;
  if (ageMs <= 7 * DAY_MS) return 1;
  if (ageMs <= 30 * DAY_MS) return 2;
  return 3;
}
