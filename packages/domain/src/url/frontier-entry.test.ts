import { describe, expect, it } from 'vitest';
import { frontierEntry } from './frontier-entry';
import { hostOf } from './host-of';
import { normalizeUrl } from './normalize-url';
import { urlFingerprint } from './url-fingerprint';

const INPUTS = [
  'https://Example.COM/a/../b?utm_source=x&b=2&a=1#frag',
  'http://bücher.example:80/ä',
  'http://[::1]:8080/x',
  'http://127.0.0.1/',
  'https://a.example./',
  'https://a*b.example/',
  'https://user:pw@a.example//x//y;jsessionid=1',
  'example.com/path',
  'HTTPS://XN--BCHER-KVA.EXAMPLE/',
];

describe('frontierEntry', () => {
  it('is the normalized URL, its fingerprint and its host', () => {
    for (const raw of INPUTS) {
      const n = normalizeUrl(raw);
      const e = frontierEntry(raw);
      if (!n.ok || !e.ok) throw new Error(`${raw} refused`);
      expect(e.entry).toEqual({ url: n.url, urlFp: urlFingerprint(n.url), host: n.host });
      // Call sites took the host as hostOf(normalized URL): the same host.
      expect(e.entry.host).toBe(hostOf(e.entry.url));
    }
  });

  it('resolves against a base and applies the length limit', () => {
    const e = frontierEntry('../c?x=1', 'https://a.example/p/q/r');
    expect(e.ok && e.entry.url).toBe('https://a.example/p/c?x=1');
    const long = `https://a.example/${'x'.repeat(100)}`;
    expect(frontierEntry(long, undefined, { maxLength: 50 })).toMatchObject({
      ok: false,
      reason: 'too_long',
    });
  });

  it('gives the normalizer reason and detail for a URL it refuses', () => {
    for (const [raw, reason] of [
      ['mailto:a@b.example', 'scheme'],
      ['', 'empty'],
      ['http:///', 'empty_host'],
      ['http://exa mple.com/', 'invalid'],
    ] as const) {
      const e = frontierEntry(raw);
      expect(e).toMatchObject({ ok: false, reason });
      expect(!e.ok && e.detail.length).toBeGreaterThan(0);
    }
  });
});
