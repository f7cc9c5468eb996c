import { takeRobotsCheck } from '../parse/held-sitemap-entries';
import { recordDenied } from '../lease/lease-run';
import { robotsAllows } from '../robots/robots-cache';
import { next, SKIP, type Step, type UrlContext } from './url-context';

/**
 * robots.txt of the URL's origin (settled before its turn, `robots/ensure-robots.ts`): a URL
 * it denies is recorded as `robots_denied` and never requested. A check queued for sitemap
 * entries held back for this origin releases or drops them (held-sitemap-entries.ts), with no
 * request.
 */
export const robotsStep: Step<UrlContext, UrlContext> = {
  name: 'robots',
  runsIn: 'event-loop',
  async run(ctx) {
    const { r, host, entry, robots } = ctx;
    if (await takeRobotsCheck(r, entry)) return SKIP;
    if (!robotsAllows(robots, entry.url)) {
      recordDenied(r, host, entry);
      return SKIP;
    }
    return next(ctx);
  },
};
