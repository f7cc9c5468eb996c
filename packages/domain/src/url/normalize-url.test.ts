import { describe, expect, it } from 'vitest';
import { normalizeUrl, type NormalizeResult } from './normalize-url';

function url(input: string, base?: string): string {
  const r = normalizeUrl(input, base);
  if (!r.ok) throw new Error(`rejected ${input}: ${r.reason} ${r.detail}`);
  return r.url;
}

function reason(input: string, base?: string, maxLength?: number): string {
  const r: NormalizeResult = normalizeUrl(
    input,
    base,
    maxLength === undefined ? undefined : { maxLength },
  );
  return r.ok ? `ok ${r.url}` : r.reason;
}

describe('normalizeUrl', () => {
  it('lowercases scheme and host, drops default port and fragment', () => {
    expect(url('HTTP://Foo.COM:80/A/B?x=1#frag')).toBe('http://foo.com/A/B?x=1');
    expect(url('https://foo.com:443/')).toBe('https://foo.com/');
    expect(url('https://foo.com:80/')).toBe('https://foo.com:80/');
    expect(url('http://foo.com:0081/')).toBe('http://foo.com:81/');
  });

  it('returns the host as the politeness key', () => {
    expect(normalizeUrl('http://WWW.Example.org.:8080/x')).toEqual({
      ok: true,
      url: 'http://www.example.org:8080/x',
      host: 'www.example.org',
    });
  });

  it('converts IDN hosts to punycode', () => {
    expect(url('http://Bücher.de/')).toBe('http://xn--bcher-kva.de/');
    expect(url('https://faß.de')).toBe('https://xn--fa-hia.de/');
  });

  it('resolves dot segments, also encoded ones, and collapses slashes', () => {
    expect(url('http://x.com/docs/../private/x')).toBe('http://x.com/private/x');
    expect(url('http://x.com/a/%2e%2E/b/./c')).toBe('http://x.com/b/c');
    expect(url('http://x.com//a///b//')).toBe('http://x.com/a/b/');
    expect(url('http://x.com/../../..')).toBe('http://x.com/');
  });

  it('sorts query parameters and strips tracking ones', () => {
    expect(url('http://x.com/p?utm_source=n&b=2&a=1&gclid=9#top')).toBe('http://x.com/p?a=1&b=2');
    expect(url('http://x.com/p?utm_source=n')).toBe('http://x.com/p');
    expect(url('http://x.com?')).toBe('http://x.com/');
  });

  it('removes session ids carried as path parameters, any case, keeping other parameters', () => {
    expect(url('http://x.com/shop;jsessionid=1A2B3C?item=4')).toBe('http://x.com/shop?item=4');
    expect(url('http://x.com/a;JSESSIONID=ab12/b.html')).toBe('http://x.com/a/b.html');
    expect(url('http://x.com/p;PHPSESSID=9f;sid=77;SessionId=x1')).toBe('http://x.com/p');
    expect(url('http://x.com/p;jsessionid=ab;v=2')).toBe('http://x.com/p;v=2');
    expect(url('./next;jsessionid=zz', 'http://x.com/dir/')).toBe('http://x.com/dir/next');
    // Only those names: a parameter that merely ends in "sid" stays.
    expect(url('http://x.com/p;bsid=3')).toBe('http://x.com/p;bsid=3');
  });

  it('drops user info', () => {
    expect(url('http://user:pass@x.com/')).toBe('http://x.com/');
  });

  it('resolves relative references against the base', () => {
    const base = 'https://example.org/product/red-table?x=1';
    expect(url('black-table', base)).toBe('https://example.org/product/black-table');
    expect(url('../a/./b', base)).toBe('https://example.org/a/b');
    expect(url('//cdn.example.org/x', base)).toBe('https://cdn.example.org/x');
    expect(url('?b=1&a=2', base)).toBe('https://example.org/product/red-table?a=2&b=1');
    expect(url('', base)).toBe('https://example.org/product/red-table?x=1');
    expect(url('#frag', base)).toBe('https://example.org/product/red-table?x=1');
  });

  it('reads a scheme-less host as http when there is no base', () => {
    expect(url('foo.com/index.html')).toBe('http://foo.com/index.html');
    expect(url('//foo.com/x')).toBe('http://foo.com/x');
    expect(reason('/just/a/path')).toBe('invalid');
    expect(reason('index')).toBe('invalid');
  });

  it('rejects other schemes', () => {
    for (const u of [
      'mailto:a@b.c',
      'javascript:void(0)',
      'ftp://x.com/',
      'file:///etc/passwd',
      'data:,x',
    ]) {
      expect(reason(u)).toBe('scheme');
    }
    expect(reason('mailto:a@b.c', 'https://x.com/')).toBe('scheme');
    expect(reason('ftp:/')).toBe('scheme');
  });

  it('rejects empty, invalid and host-less input', () => {
    expect(reason('')).toBe('empty');
    expect(reason('   ')).toBe('empty');
    expect(reason('http://')).toBe('empty_host');
    expect(reason('http:////')).toBe('empty_host');
    expect(reason('https://./')).toBe('empty_host');
    expect(reason('http://ex ample.com/')).toBe('invalid');
    expect(reason('http://x.com:99999/')).toBe('invalid');
    expect(reason('relative', 'not a url')).toBe('invalid');
    expect(reason('http://foo.09..')).toBe('invalid');
  });

  it('accepts an absolute URL even when the base is invalid', () => {
    expect(url('http://x.com/a', 'not a url')).toBe('http://x.com/a');
  });

  it('rejects URLs longer than maxLength', () => {
    const long = `http://x.com/${'a'.repeat(2040)}`;
    expect(reason(long)).toBe('too_long');
    expect(reason(long, undefined, 4096)).toBe(`ok ${long}`);
    expect(reason('http://x.com/abcdef', undefined, 16)).toBe('too_long');
    expect(reason(`http://x.com/${'a'.repeat(100_000)}`)).toBe('too_long');
    // Counted after normalization: tracking parameters do not count.
    expect(reason(`http://x.com/?utm_source=${'a'.repeat(2100)}`)).toBe('ok http://x.com/');
  });

  it('never throws, whatever the input', () => {
    const inputs: unknown[] = [
      null,
      undefined,
      42,
      {},
      '\u0000',
      'http://[::1',
      'http://%zz/',
      '\ud800',
    ];
    for (const input of inputs) {
      expect(() => normalizeUrl(input as string)).not.toThrow();
      expect(() => normalizeUrl('a', input as string)).not.toThrow();
    }
  });

  it('is idempotent', () => {
    const inputs = [
      'http://x.com/a b/%7e/%zz?b=%&a=[1]',
      'http://Bücher.de/ñ?q=ü',
      "http://x.com/it's?a='1'",
      'http://1.2.3.4./x',
      'http://[::FFFF:1.2.3.4]:8080/',
    ];
    for (const input of inputs) {
      const once = url(input);
      expect(url(once)).toBe(once);
    }
  });
});
