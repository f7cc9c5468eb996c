import { describe, expect, it } from 'vitest';
import { isAllowed, normalizeEncoding, parseRobots, policyFor, robotsPathOf } from './matcher.js';

const allowed = (text: string, path: string, token = 'crawlerbot'): boolean =>
  isAllowed(policyFor(parseRobots(text), token), robotsPathOf(path));

describe('robots matcher', () => {
  it('keeps the first group after a UTF-8 BOM with CRLF line ends', () => {
    const text = '\uFEFFUser-agent: *\r\nDisallow: /private/\r\n';
    expect(allowed(text, '/private/x')).toBe(false);
    expect(allowed(text, '/public')).toBe(true);
  });
  it('uses the longest match and lets Allow win ties', () => {
    const text =
      'User-agent: *\nDisallow: /private/\nAllow: /private/open/\nDisallow: /shared/\nAllow: /shared/\n';
    expect(allowed(text, '/private/secret.html')).toBe(false);
    expect(allowed(text, '/private/open/page.html')).toBe(true);
    expect(allowed(text, '/shared/doc.html')).toBe(true);
  });
  it('supports * and $', () => {
    const text = 'User-agent: *\nDisallow: /*.txt$\nDisallow: /*?print=\n';
    expect(allowed(text, '/readme.txt')).toBe(false);
    expect(allowed(text, '/readme.txt?v=2')).toBe(true);
    expect(allowed(text, '/a.html?print=1')).toBe(false);
    expect(allowed(text, '/a.html?x=1&print=1')).toBe(true);
  });
  it('normalises percent-encoding on both sides', () => {
    expect(normalizeEncoding('/%7ejoe/%2f%c3%a9')).toBe('/~joe/%2F%C3%A9');
    expect(allowed('User-agent: *\nDisallow: /%7Ejoe/\n', '/~joe/index.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /~joe/\n', '/%7Ejoe/index.html')).toBe(false);
  });
  it('resolves dot segments before matching', () => {
    expect(allowed('User-agent: *\nDisallow: /private/\n', '/docs/../private/x')).toBe(false);
  });
  it('picks the product-token group (case-insensitive) over *, ignores other bots', () => {
    const text =
      'User-agent: otherbot\nDisallow: /\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /\n\nUser-agent: CrawlerBot/2.0\nAllow: /\nCrawl-delay: 0.5\n';
    expect(allowed(text, '/x')).toBe(true);
    expect(allowed(text, '/x', 'somebot')).toBe(false);
    expect(policyFor(parseRobots(text), 'crawlerbot').crawlDelayS).toBe(0.5);
    const other =
      'User-agent: otherbot\nDisallow: /\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /private/\n';
    expect(allowed(other, '/x')).toBe(true);
    expect(policyFor(parseRobots(other), 'crawlerbot').crawlDelayS).toBeNull();
  });
  it('reads Sitemap lines and always allows /robots.txt', () => {
    const parsed = parseRobots('Sitemap: http://h/s.xml\nUser-agent: *\nDisallow: /\n');
    expect(parsed.sitemaps).toEqual(['http://h/s.xml']);
    expect(isAllowed(policyFor(parsed, 'x'), '/robots.txt')).toBe(true);
    expect(isAllowed(policyFor(parsed, 'x'), '/')).toBe(false);
  });
  it('allows everything without a matching group or with an empty Disallow', () => {
    expect(allowed('User-agent: otherbot\nDisallow: /\n', '/x')).toBe(true);
    expect(allowed('User-agent: *\nDisallow:\n', '/x')).toBe(true);
  });
});
