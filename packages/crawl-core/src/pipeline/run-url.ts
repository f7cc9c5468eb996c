import { archiveStep } from './archive-step';
import { feedStep } from './feed-step';
import { fetchStep } from './fetch-step';
import { linksStep } from './links-step';
import { parseStep } from './parse-step';
import { robotsStep } from './robots-step';
import { screenStep } from './screen-step';
import { telemetryStep } from './telemetry-step';
import type { UrlContext, UrlOutcome } from './url-context';

/**
 * Every step of a URL's way, in order, and where each runs. Before the request: `robots` (may
 * robots.txt have it?) then `screen` (the operators' blocks and the quality rules; after robots,
 * so a denied URL counts as `robots_denied`, not under a quality rule). Then the request and what
 * follows it: `fetch` → `archive` → `parse` → `links` → `feed` → `telemetry`.
 */
export const URL_STEPS = [
  robotsStep,
  screenStep,
  fetchStep,
  archiveStep,
  parseStep,
  linksStep,
  feedStep,
  telemetryStep,
] as const;

/**
 * Takes one leased URL its whole way (the lease loop, lease/work-urls.ts, calls this once a
 * connection's turn has come and robots.txt of its origin is settled). A step ends the way early
 * by saying the URL is done, skipped, to be retried, cut or that the lease stops. The body the
 * fetch holds is given back to the body budget when the way ends, whatever happened.
 */
export async function runUrl(ctx: UrlContext): Promise<UrlOutcome> {
  const allowed = await robotsStep.run(ctx);
  if (allowed.kind !== 'next') return allowed;
  const screened = await screenStep.run(allowed.ctx);
  if (screened.kind !== 'next') return screened;
  return ctx.r.leases.fetch(async () => {
    const fetched = await fetchStep.run(screened.ctx);
    if (fetched.kind !== 'next') return fetched;
    try {
      const archived = await archiveStep.run(fetched.ctx);
      if (archived.kind !== 'next') return archived;
      const parsed = await parseStep.run(archived.ctx);
      if (parsed.kind !== 'next') return parsed;
      const linked = await linksStep.run(parsed.ctx);
      if (linked.kind !== 'next') return linked;
      const fed = await feedStep.run(linked.ctx);
      if (fed.kind !== 'next') return fed;
      const recorded = await telemetryStep.run(fed.ctx);
      return recorded.kind === 'next' ? { kind: 'done' } : recorded;
    } finally {
      ctx.r.http.releaseBody(fetched.ctx.res);
    }
  });
}
