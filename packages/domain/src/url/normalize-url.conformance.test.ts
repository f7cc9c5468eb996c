/**
 * Conformance of the URL module with published vectors (read in place, never edited):
 * crawler-commons' normalizer and resolver cases (Apache-2.0) and the WHATWG URL test data
 * from web-platform-tests (BSD-3-Clause). See /work/shared/conformance/README.md.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeUrl, type NormalizeRejectReason } from './normalize-url';
import { resolveBase } from './resolve-base';

const CONFORMANCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/conformance/url',
);

function readVectors(file: string): string[][] {
  const text = readFileSync(resolve(CONFORMANCE, file), 'utf8');
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map(parseCsvLine);
}

/**
 * One CSV record as JUnit's @CsvFileSource reads it (the vectors were written for it):
 * fields split on ',', unquoted fields trimmed, "…" quoted with "" for a quote.
 */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    while (line[i] === ' ') i++;
    if (line[i] === '"') {
      let field = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else {
          field += line[i];
          i++;
        }
      }
      fields.push(field);
      const comma = line.indexOf(',', i);
      i = comma < 0 ? line.length + 1 : comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      fields.push(line.slice(i, end).trim());
      i = end + 1;
    }
  }
  return fields;
}

/**
 * Pairs of crawler-commons-weirdToNormalizedUrls.csv where a documented rule of ours gives
 * another answer, with the answer we give instead.
 */
const WEIRD_DEVIATIONS: Record<string, { reason: NormalizeRejectReason; rule: string }> = {
  'file:///foo/bar.txt': { reason: 'scheme', rule: 'http/https only' },
  'ftp:/': { reason: 'scheme', rule: 'http/https only' },
  'ftp://foo.com/index.html': { reason: 'scheme', rule: 'http/https only' },
  'file:/path/index.html': { reason: 'scheme', rule: 'http/https only' },
  'file:/var/www/html/////./bar/index.html': { reason: 'scheme', rule: 'http/https only' },
  'file:/var/www/html/foo/../bar/index.html': { reason: 'scheme', rule: 'http/https only' },
  'http:////': {
    reason: 'empty_host',
    rule: 'an http(s) URL needs a host (crawler-commons: "http:/")',
  },
  'http:///////': {
    reason: 'empty_host',
    rule: 'an http(s) URL needs a host (crawler-commons: "http:/")',
  },
};

describe('crawler-commons weirdToNormalizedUrls', () => {
  const pairs = readVectors('crawler-commons-weirdToNormalizedUrls.csv').map(
    ([input = '', expected = '']) => [input, expected] as const,
  );
  const agreeing = pairs.filter(([input]) => !(input in WEIRD_DEVIATIONS));

  it('has the expected vectors', () => {
    expect(pairs.length).toBe(112);
    expect(agreeing.length).toBe(104);
    for (const input of Object.keys(WEIRD_DEVIATIONS)) {
      expect(pairs.some(([i]) => i === input)).toBe(true);
    }
  });

  it.each(agreeing)('%j -> %j', (input, expected) => {
    const r = normalizeUrl(input);
    expect(r.ok ? r.url : `rejected: ${r.reason} ${r.detail}`).toBe(expected);
  });

  it.each(Object.entries(WEIRD_DEVIATIONS))('deviation %j (%j)', (input, { reason }) => {
    expect(normalizeUrl(input)).toMatchObject({ ok: false, reason });
  });

  it.each(agreeing)('is idempotent on %j', (input) => {
    const once = normalizeUrl(input);
    if (!once.ok) throw new Error(once.detail);
    expect(normalizeUrl(once.url)).toEqual(once);
  });
});

describe('crawler-commons invalidUrls', () => {
  const inputs = readVectors('crawler-commons-invalidUrls.csv').map(([input = '']) => input);

  it('has the expected vectors', () => {
    expect(inputs.length).toBe(2);
  });

  it.each(inputs)('rejects %j without throwing', (input) => {
    expect(normalizeUrl(input)).toMatchObject({ ok: false, reason: 'invalid' });
  });
});

describe('crawler-commons url-resolve', () => {
  const cases = readVectors('crawler-commons-url-resolve.csv').map(
    ([input = '', base = '', expected = '']) => [input, base, expected] as const,
  );

  it('has the expected vectors', () => {
    expect(cases.length).toBe(22);
  });

  it.each(cases)('resolveBase: %j against %j is %j', (input, base, expected) => {
    expect(resolveBase(base, input)).toBe(expected);
  });

  // Through the normalizer, the resolution must equal the normalized expectation; the one
  // file: case is refused by both sides under the rule "http/https only".
  it.each(cases)('normalizeUrl: %j against %j normalizes like %j', (input, base, expected) => {
    expect(normalizeUrl(input, base)).toEqual(normalizeUrl(expected));
  });
});

interface WptCase {
  input: string;
  base: string | null;
  href?: string;
  hostname?: string;
  protocol?: string;
  failure?: boolean;
}

describe('WHATWG urltestdata (web-platform-tests)', () => {
  const raw: unknown = JSON.parse(
    readFileSync(resolve(CONFORMANCE, 'crawler-commons-wpt-urltestdata.json'), 'utf8'),
  );
  const cases = (raw as unknown[]).filter(
    (c): c is WptCase => typeof c === 'object' && c !== null && 'input' in c,
  );

  it('has the expected vectors', () => {
    expect(cases.length).toBeGreaterThan(800);
  });

  it('never throws, rejects what WHATWG rejects and keeps the WHATWG host', () => {
    let accepted = 0;
    for (const c of cases) {
      let r: ReturnType<typeof normalizeUrl> | undefined;
      expect(() => {
        r = normalizeUrl(c.input, c.base ?? undefined);
      }, JSON.stringify(c)).not.toThrow();
      if (r === undefined || !r.ok) continue;
      accepted++;
      expect(c.failure, `accepted a WHATWG failure: ${JSON.stringify(c)}`).not.toBe(true);
      expect(['http:', 'https:']).toContain(c.protocol);
      expect(r.host).toBe(c.hostname?.replace(/\.+$/, ''));
      const again = normalizeUrl(r.url);
      expect(again, `idempotent for ${JSON.stringify(c.input)}`).toEqual(r);
    }
    expect(accepted).toBeGreaterThan(200);
  });
});
