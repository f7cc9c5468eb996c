import { screenLeasedUrl } from '../quality/screen-urls';
import { next, SKIP, type Step, type UrlContext } from './url-context';

/**
 * The operators' URL-pattern blocks and the host's quality rules (quality/screen-urls.ts),
 * before any request: a URL they keep out is skipped; a host whose duplicate budget is spent
 * stops its lease until the next UTC day.
 */
export const screenStep: Step<UrlContext, UrlContext> = {
  name: 'screen',
  runsIn: 'event-loop',
  async run(ctx) {
    const screen = await screenLeasedUrl(ctx.r, ctx.host, ctx.entry);
    if (screen.kind === 'skip') return SKIP;
    if (screen.kind === 'stop') return { kind: 'stop', delayMs: screen.delayMs };
    return next(ctx);
  },
};
