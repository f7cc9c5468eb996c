import { describe, expect, it } from 'vitest';
import {
  applyMetaRobots,
  applyXRobotsTag,
  noRobotsDirectives,
  type RobotsDirectives,
} from './robots-directives';

function meta(...contents: string[]): RobotsDirectives {
  const d = noRobotsDirectives();
  for (const c of contents) applyMetaRobots(c, d);
  return d;
}

function header(values: string | string[] | null, token?: string): RobotsDirectives {
  const d = noRobotsDirectives();
  applyXRobotsTag(values, d, token);
  return d;
}

describe('robots directives', () => {
  it('reads meta robots content in any case, separated by commas or spaces', () => {
    expect(meta('NoIndex, NOFOLLOW')).toEqual({ noindex: true, nofollow: true, noarchive: false });
    expect(meta('noarchive')).toEqual({ noindex: false, nofollow: false, noarchive: true });
    expect(meta('index,follow', 'nocache')).toMatchObject({ noindex: false, noarchive: true });
    expect(meta('noindex nofollow')).toMatchObject({ noindex: true, nofollow: true });
  });

  it('reads none as noindex + nofollow, and lets restrictive directives win', () => {
    expect(meta('none')).toEqual({ noindex: true, nofollow: true, noarchive: false });
    expect(meta('noindex', 'index, follow')).toMatchObject({ noindex: true });
  });

  it('applies unscoped X-Robots-Tag directives', () => {
    expect(header('noindex, noarchive')).toEqual({
      noindex: true,
      nofollow: false,
      noarchive: true,
    });
    expect(header(null)).toEqual(noRobotsDirectives());
    expect(header('')).toEqual(noRobotsDirectives());
  });

  it('applies directives scoped to our product token only', () => {
    expect(header('crawlerbot: noindex', 'CrawlerBot')).toMatchObject({ noindex: true });
    expect(header('googlebot: noindex', 'crawlerbot')).toMatchObject({ noindex: false });
    expect(header('crawlerbot: noindex')).toMatchObject({ noindex: false });
    // A scope runs to the end of its line, or to the next scope.
    expect(header('otherbot: noindex, nofollow', 'crawlerbot')).toEqual(noRobotsDirectives());
    expect(header('otherbot: noindex, crawlerbot: nofollow', 'crawlerbot')).toEqual({
      noindex: false,
      nofollow: true,
      noarchive: false,
    });
    expect(header(['otherbot: noindex', 'nofollow'], 'crawlerbot')).toEqual({
      noindex: false,
      nofollow: true,
      noarchive: false,
    });
  });

  it('does not take valued directives for user-agent scopes', () => {
    expect(header('unavailable_after: 2025-06-25, noindex')).toMatchObject({ noindex: true });
    expect(header('max-snippet: 20, nofollow', 'crawlerbot')).toMatchObject({ nofollow: true });
  });
});
