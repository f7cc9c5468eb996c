import { describe, expect, it } from 'vitest';
import { parseRobots, ROBOTS_MAX_BYTES } from './parse-robots';

const ROBOTS_URL = 'https://example.com/robots.txt';
const U = (path: string): string => `https://example.com${path}`;

function rules(body: string, token = 'crawlerbot') {
  return parseRobots(body, ROBOTS_URL, token);
}

describe('parseRobots', () => {
  it('allows everything for an empty file', () => {
    const r = rules('');
    expect(r.isAllowed(U('/anything'))).toBe(true);
    expect(r.crawlDelayS).toBeNull();
    expect(r.sitemaps).toEqual([]);
  });

  it('keeps the first group of a file with a UTF-8 BOM', () => {
    const r = rules('\ufeffUser-agent: *\nDisallow: /private/\n');
    expect(r.isAllowed(U('/private/x'))).toBe(false);
    expect(rules('\u00ef\u00bb\u00bfUser-agent: *\nDisallow: /p\n').isAllowed(U('/p'))).toBe(false);
  });

  it('reads CRLF and CR line ends', () => {
    for (const eol of ['\r\n', '\r', '\n']) {
      const r = rules(['User-agent: crawlerbot', 'Disallow: /a', 'Crawl-delay: 3', ''].join(eol));
      expect(r.isAllowed(U('/a/b'))).toBe(false);
      expect(r.isAllowed(U('/b'))).toBe(true);
      expect(r.crawlDelayS).toBe(3);
    }
  });

  it('resolves dot segments before matching', () => {
    const r = rules('User-agent: *\nDisallow: /private/\n');
    expect(r.isAllowed(U('/docs/../private/x'))).toBe(false);
    expect(r.isAllowed(U('/docs/%2E%2E/private/x'))).toBe(false);
    expect(r.isAllowed(U('/private/../docs/x'))).toBe(true);
  });

  it('normalizes percent-encoding on both sides', () => {
    const r = rules('User-agent: *\nDisallow: /%7Euser/\nDisallow: /caf%c3%a9\nDisallow: /ü\n');
    expect(r.isAllowed(U('/~user/x'))).toBe(false);
    expect(r.isAllowed(U('/%7euser/x'))).toBe(false);
    expect(r.isAllowed(U('/caf%C3%A9'))).toBe(false);
    expect(r.isAllowed(U('/%C3%BC'))).toBe(false);
  });

  it('always allows /robots.txt', () => {
    const r = rules('User-agent: *\nDisallow: /\n');
    expect(r.isAllowed(U('/robots.txt'))).toBe(true);
    expect(r.isAllowed(U('/robots.txt?x=1'))).toBe(false);
    expect(r.isAllowed(U('/'))).toBe(false);
  });

  it('merges all groups naming the product token and ignores *', () => {
    const r = rules(
      'User-agent: CrawlerBot\nDisallow: /a\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /b\nCrawl-delay: 9\n\nuser-agent: crawlerbot/2.0\nDisallow: /c\nCrawl-delay: 5\n',
    );
    expect(r.isAllowed(U('/a'))).toBe(false);
    expect(r.isAllowed(U('/c'))).toBe(false);
    expect(r.isAllowed(U('/b'))).toBe(true);
    expect(r.crawlDelayS).toBe(5);
  });

  it('falls back to the * group', () => {
    const r = rules(
      'User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /b\nCrawl-delay: 1.5\n',
    );
    expect(r.isAllowed(U('/a'))).toBe(true);
    expect(r.isAllowed(U('/b'))).toBe(false);
    expect(r.crawlDelayS).toBe(1.5);
  });

  it('treats an empty group for the token as allow-all', () => {
    const r = rules('User-agent: *\nDisallow: /\n\nUser-agent: crawlerbot\n');
    expect(r.isAllowed(U('/x'))).toBe(true);
    expect(r.crawlDelayS).toBeNull();
  });

  it('does not confuse a longer agent name with the token', () => {
    const r = rules('User-agent: crawlerbot2\nDisallow: /\n\nUser-agent: crawler\nDisallow: /\n');
    expect(r.isAllowed(U('/x'))).toBe(true);
  });

  it('ignores rules before the first User-agent and unknown lines', () => {
    const r = rules('Disallow: /\nFoo: bar\nUser-agent: *\nNoindex: /x\nDisallow: /y\n');
    expect(r.isAllowed(U('/x'))).toBe(true);
    expect(r.isAllowed(U('/y'))).toBe(false);
  });

  it('keeps a group open across Sitemap and Crawl-delay lines', () => {
    const r = rules(
      'User-agent: a\nCrawl-delay: 4\nSitemap: /s.xml\nUser-agent: crawlerbot\nDisallow: /x\n',
    );
    expect(r.isAllowed(U('/x'))).toBe(false);
    expect(r.crawlDelayS).toBe(4);
  });

  it('ignores invalid crawl-delays', () => {
    expect(rules('User-agent: *\nCrawl-delay: soon\n').crawlDelayS).toBeNull();
    expect(rules('User-agent: *\nCrawl-delay: -3\n').crawlDelayS).toBeNull();
    expect(rules('User-agent: *\nCrawl-delay: 10s\n').crawlDelayS).toBe(10);
  });

  it('collects absolute sitemaps from anywhere in the file', () => {
    const r = rules(
      'Sitemap: https://example.com/a.xml\nUser-agent: otherbot\nSitemap: /b.xml # comment\nsitemap: https://example.com/a.xml\nSitemap: ftp://x/c.xml\nSitemap:\n',
    );
    expect(r.sitemaps).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml']);
  });

  it('accepts a missing colon and misspelled keys like google/robotstxt', () => {
    expect(rules('user-agent crawlerbot\ndisallow /x\n').isAllowed(U('/x'))).toBe(false);
    expect(rules('useragent: *\ndissallow: /x\n').isAllowed(U('/x'))).toBe(false);
  });

  it('ignores content past 500 KiB and the line the cap cuts', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = `# ${'x'.repeat(ROBOTS_MAX_BYTES - head.length - 20)}\n`;
    const r = rules(`${head}${filler}Disallow: /cut-in-the-middle-of-this-line\nDisallow: /late\n`);
    expect(r.isAllowed(U('/early'))).toBe(false);
    expect(r.isAllowed(U('/cut'))).toBe(true);
    expect(r.isAllowed(U('/late'))).toBe(true);
  });

  it('counts the cap in UTF-8 bytes', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = `# ${'é'.repeat(ROBOTS_MAX_BYTES / 2)}\n`;
    const r = rules(`${head}${filler}Disallow: /late\n`);
    expect(r.isAllowed(U('/early'))).toBe(false);
    expect(r.isAllowed(U('/late'))).toBe(true);
  });

  it('matches only the product token given', () => {
    const body = 'User-agent: crawlerbot\nDisallow: /\n';
    expect(parseRobots(body, ROBOTS_URL, 'CrawlerBot').isAllowed(U('/x'))).toBe(false);
    expect(parseRobots(body, ROBOTS_URL, '').isAllowed(U('/x'))).toBe(true);
  });
});
