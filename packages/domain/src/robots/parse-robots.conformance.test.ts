/**
 * Conformance of parseRobots with published vectors, read in place and never edited:
 * google/robotstxt `robots_test.cc` (Apache-2.0) and crawler-commons'
 * SimpleRobotRulesParserTest RFC 9309 cases (Apache-2.0). See
 * /work/shared/conformance/README.md.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRobots } from './parse-robots';

const CONFORMANCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/conformance/robots',
);

interface RobotsCase {
  robots: string;
  userAgent: string;
  url: string;
  allowed: boolean;
  name: string;
}

function readCases(file: string): RobotsCase[] {
  return JSON.parse(readFileSync(resolve(CONFORMANCE, file), 'utf8')) as RobotsCase[];
}

function robotsUrlOf(url: string): string {
  try {
    return new URL('/robots.txt', url).href;
  } catch {
    return 'http://foo.bar/robots.txt';
  }
}

function verdict(c: RobotsCase): boolean {
  return parseRobots(c.robots, robotsUrlOf(c.url), c.userAgent).isAllowed(c.url);
}

/**
 * Cases where we deliberately answer differently, with the reason. Only Google's own
 * leniencies (`GoogleOnly_`) may appear here, never an RFC 9309 (`ID_`) case.
 */
const GOOGLE_DEVIATIONS: Record<string, string> = {
  'GoogleOnly_IndexHTMLisDirectory#1@L507':
    'Google reads "Allow: /dir/index.html" as also allowing "/dir/". RFC 9309 has no such ' +
    'rule and "/dir/" is another URL the site may serve differently; under "Disallow: /" we ' +
    'keep it disallowed, erring toward not fetching.',
};

describe('google/robotstxt cases', () => {
  const cases = readCases('google-robotstxt-cases.json');
  const agreeing = cases.filter((c) => !(c.name in GOOGLE_DEVIATIONS));

  it('has 145 cases and deviates on Google-only ones alone', () => {
    expect(cases.length).toBe(145);
    for (const name of Object.keys(GOOGLE_DEVIATIONS)) {
      expect(name.startsWith('GoogleOnly_')).toBe(true);
      expect(cases.some((c) => c.name === name)).toBe(true);
    }
    expect(agreeing.length).toBeGreaterThanOrEqual(140);
  });

  it.each(agreeing.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(verdict(c)).toBe(c.allowed);
  });

  it.each(cases.filter((c) => c.name in GOOGLE_DEVIATIONS).map((c) => [c.name, c] as const))(
    'deviation %s',
    (_name, c) => {
      expect(verdict(c)).toBe(!c.allowed);
    },
  );

  it('passes every RFC 9309 (ID_) case', () => {
    const rfc = cases.filter((c) => c.name.startsWith('ID_'));
    expect(rfc.length).toBe(72);
    expect(rfc.filter((c) => verdict(c) !== c.allowed).map((c) => c.name)).toEqual([]);
  });
});

describe('crawler-commons RFC 9309 cases', () => {
  const cases = readCases('crawler-commons-rfc9309-cases.json');

  it('has 61 cases', () => {
    expect(cases.length).toBe(61);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(verdict(c)).toBe(c.allowed);
  });
});
