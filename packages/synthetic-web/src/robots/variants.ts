/**
 * robots.txt bodies of the variants (see README "robots.txt variants").
 */
import type { HostHeader } from '../model/assign.js';
import { robotsSitemapPaths } from '../model/plan.js';
import { originOf } from '../model/realistic.js';
import { ROBOTS_REDIRECT_PATH } from '../model/resources.js';

/** Absolute sitemap URLs of a host as its robots.txt lists them. */
export function sitemapUrls(h: HostHeader, port: number): string[] {
  return robotsSitemapPaths(h).map((p) => `${originOf(h, port)}${p}`);
}

/** What GET /robots.txt answers. */
export interface RobotsAnswer {
  status: number;
  /** Body (text/plain) or null for an empty body. */
  body: string | null;
  /** Location header for the redirect variant (absolute path). */
  location?: string;
}

function capitalised(token: string): string {
  return token.charAt(0).toUpperCase() + token.slice(1);
}

/**
 * The robots.txt text that governs the host (for `redirect`: the body of the redirect target), or
 * null when there is none (missing, 403, 5xx).
 * @param token product token the web is generated for.
 * @param sitemapUrls absolute sitemap URLs to list.
 */
export function robotsText(
  h: HostHeader,
  token: string,
  sitemapUrls: readonly string[],
): string | null {
  const sitemapLines = sitemapUrls.map((u) => `Sitemap: ${u}\n`).join('');
  const head = `# robots.txt for ${h.host}\n`;
  switch (h.robots) {
    case 'missing':
    case '403':
    case '5xx':
      return null;
    case 'ok':
    case 'redirect':
      return `${head}User-agent: *\nDisallow: /private/\n${sitemapLines}`;
    case 'bom-crlf':
      // The group is on the very first line, right after the BOM.
      return `\uFEFFUser-agent: *\nDisallow: /private/\n# robots.txt for ${h.host}\n${sitemapLines}`.replace(
        /\n/g,
        '\r\n',
      );
    case 'longest-match':
      return (
        `${head}User-agent: *\nDisallow: /private/\nAllow: /private/open/\n` +
        `# equal length: Allow wins\nDisallow: /shared/\nAllow: /shared/\n${sitemapLines}`
      );
    case 'wildcards':
      return (
        `${head}User-agent: *\nDisallow: /*.txt$\nDisallow: /*?print=\n` +
        `Disallow: /%7Ejoe/\nDisallow: /private/\n${sitemapLines}`
      );
    case 'other-bot':
      return `${head}User-agent: otherbot\nDisallow: /\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /private/\n${sitemapLines}`;
    case 'product-token':
      return (
        `${head}User-agent: *\nDisallow: /\n\nUser-agent: ${capitalised(token)}\n` +
        `Allow: /\nDisallow: /private/\n${sitemapLines}`
      );
    case 'crawl-delay':
      return `${head}User-agent: *\nCrawl-delay: ${String(h.crawlDelayS ?? 0.3)}\nDisallow: /private/\n${sitemapLines}`;
  }
}

/** The answer to GET /robots.txt. */
export function robotsAnswer(
  h: HostHeader,
  token: string,
  sitemapUrls: readonly string[],
): RobotsAnswer {
  switch (h.robots) {
    case 'missing':
      return { status: 404, body: 'not found\n' };
    case '403':
      return { status: 403, body: 'forbidden\n' };
    case '5xx':
      return { status: 500, body: 'internal error\n' };
    case 'redirect':
      return { status: 301, body: null, location: ROBOTS_REDIRECT_PATH };
    default:
      return { status: 200, body: robotsText(h, token, sitemapUrls) };
  }
}
