import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRobots, readRobots, robotsRulesOf } from './parse-robots';
import { decodeReadRobots, encodeReadRobots } from './read-robots-codec';

const CONFORMANCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/conformance/robots',
);

interface RobotsCase {
  robots: string;
  userAgent: string;
  url: string;
  name: string;
}

function robotsUrlOf(url: string): string {
  try {
    return new URL('/robots.txt', url).href;
  } catch {
    return 'http://foo.bar/robots.txt';
  }
}

/** The rules as a worker hands them back: read, encoded, decoded, then matched. */
function throughWire(body: string, robotsUrl: string, token: string) {
  return robotsRulesOf(decodeReadRobots(encodeReadRobots(readRobots(body, robotsUrl, token))));
}

describe('encodeReadRobots / decodeReadRobots', () => {
  const cases = ['google-robotstxt-cases.json', 'crawler-commons-rfc9309-cases.json'].flatMap(
    (f) => JSON.parse(readFileSync(resolve(CONFORMANCE, f), 'utf8')) as RobotsCase[],
  );

  it('gives every published conformance case the verdict parseRobots gives', () => {
    expect(cases.length).toBe(206);
    const differ = cases.filter((c) => {
      const robotsUrl = robotsUrlOf(c.url);
      return (
        throughWire(c.robots, robotsUrl, c.userAgent).isAllowed(c.url) !==
        parseRobots(c.robots, robotsUrl, c.userAgent).isAllowed(c.url)
      );
    });
    expect(differ.map((c) => c.name)).toEqual([]);
  });

  it('keeps rules, anchors, wildcards, odd characters, crawl-delay and sitemaps', () => {
    const body = [
      'User-agent: crawlerbot',
      'Disallow: /a*b$',
      'Allow: /a/ok\u0000"\\x',
      'Disallow: /ünï/%2F',
      'Crawl-delay: 2.5',
      'Sitemap: /s.xml',
    ].join('\n');
    const read = readRobots(body, 'https://e.test/robots.txt', 'crawlerbot');
    expect(decodeReadRobots(encodeReadRobots(read))).toEqual(read);
    const rules = throughWire(body, 'https://e.test/robots.txt', 'crawlerbot');
    expect(rules.isAllowed('https://e.test/axxb')).toBe(false);
    expect(rules.isAllowed('https://e.test/axxbc')).toBe(true);
    expect(rules.crawlDelayS).toBe(2.5);
    expect(rules.sitemaps).toEqual(['https://e.test/s.xml']);
  });

  it('refuses text that is not an encoding', () => {
    expect(() => decodeReadRobots('{}')).toThrow(/not an encoded robots/);
    expect(() => decodeReadRobots('[null, [], [[1, 2]]]')).toThrow(/rule/);
  });
});
