import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap, SITEMAP_MAX_URLS } from './parse-sitemap';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const urlset = (inner: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">\n${inner}</urlset>\n`;
const locs = (r: { entries: { loc: string }[] }): string[] => r.entries.map((e) => e.loc);

describe('parseSitemap: gzip, text, encodings', () => {
  it('inflates a gzipped urlset detected by its magic bytes', async () => {
    const body = gzipSync(urlset(`<url><loc>https://ex.com/gz</loc></url>`));
    const r = await parseSitemap(body);
    expect(locs(r)).toEqual(['https://ex.com/gz']);
    expect(r.errors).toEqual([]);
  });

  it('keeps what a cut gzip stream holds', async () => {
    const inner = Array.from(
      { length: 2000 },
      (_, i) => `<url><loc>https://ex.com/${i}</loc></url>\n`,
    );
    const full = gzipSync(urlset(inner.join('')));
    const r = await parseSitemap(full.subarray(0, Math.floor(full.length / 2)));
    expect(r.entries.length).toBeGreaterThan(100);
    expect(r.entries.length).toBeLessThan(2000);
    expect(r.errors.some((e) => /unclosed tag/.test(e))).toBe(true);
  });

  it('reports a corrupt gzip stream', async () => {
    const body = Uint8Array.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    const r = await parseSitemap(body);
    expect(r.entries).toEqual([]);
    expect(r.errors[0]).toMatch(/^gzip: Z_/);
  });

  it('reads a plain-text sitemap: one URL per line, LF/CRLF/CR, blanks ignored', async () => {
    const r = await parseSitemap(
      bytes(
        'https://ex.com/1\r\nhttps://ex.com/2\n\n  https://ex.com/3  \rnot a url\nhttps://ex.com/4',
      ),
      { sitemapUrl: 'https://ex.com/sitemap.txt' },
    );
    expect(r.kind).toBe('text');
    expect(locs(r)).toEqual([
      'https://ex.com/1',
      'https://ex.com/2',
      'https://ex.com/3',
      'https://ex.com/4',
    ]);
    expect(r.errors).toEqual([`loc is not an absolute http(s) URL: "not a url"`]);
  });

  it('reads a gzipped text sitemap', async () => {
    const r = await parseSitemap(gzipSync('https://ex.com/1\nhttps://ex.com/2\n'));
    expect(r).toMatchObject({ kind: 'text', errors: [] });
    expect(locs(r)).toEqual(['https://ex.com/1', 'https://ex.com/2']);
  });

  it('accepts a UTF-8 BOM and blanks before the XML declaration', async () => {
    const xml = bytes(`\n  ${urlset('<url><loc>https://ex.com/b</loc></url>')}`);
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...xml]);
    const r = await parseSitemap(body);
    expect(locs(r)).toEqual(['https://ex.com/b']);
    expect(r.errors).toEqual([]);
    const text = await parseSitemap(
      new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('https://ex.com/t\n')]),
    );
    expect(text).toMatchObject({ kind: 'text', errors: [] });
    expect(locs(text)).toEqual(['https://ex.com/t']);
  });

  it('decodes UTF-8 across chunk boundaries and a UTF-16 body with a BOM', async () => {
    const inner = Array.from(
      { length: 3000 },
      (_, i) => `<url><loc>https://ex.com/ü/${i}</loc></url>`,
    );
    const r = await parseSitemap(bytes(urlset(inner.join(''))));
    expect(r.entries).toHaveLength(3000);
    expect(r.entries.every((e) => e.loc.includes('/%C3%BC/'))).toBe(true);
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(urlset('<url><loc>https://ex.com/ü</loc></url>'), 'utf16le'),
    ]);
    expect(locs(await parseSitemap(utf16))).toEqual(['https://ex.com/%C3%BC']);
  });
});

describe('parseSitemap: limits', () => {
  it('truncates a 60,000-URL sitemap at the protocol limit of 50,000', async () => {
    const inner = Array.from(
      { length: 60_000 },
      (_, i) => `<url><loc>https://ex.com/p/${i}</loc></url>\n`,
    );
    const r = await parseSitemap(bytes(urlset(inner.join(''))));
    expect(r.entries).toHaveLength(SITEMAP_MAX_URLS);
    expect(r.truncated).toBe('max_urls');
    expect(r.entries.at(-1)?.loc).toBe('https://ex.com/p/49999');
    expect(r.errors).toEqual([]);
  });

  it('is not truncated at exactly maxUrls entries, and truncates text sitemaps too', async () => {
    const lines = (n: number): Uint8Array =>
      bytes(Array.from({ length: n }, (_, i) => `https://ex.com/${i}`).join('\n'));
    expect(await parseSitemap(lines(10), { maxUrls: 10 })).toMatchObject({ truncated: null });
    const r = await parseSitemap(lines(11), { maxUrls: 10 });
    expect(r).toMatchObject({ kind: 'text', truncated: 'max_urls' });
    expect(r.entries).toHaveLength(10);
  });

  it('stops at maxBytes (uncompressed) and keeps complete entries before the cut', async () => {
    const inner = Array.from(
      { length: 1000 },
      (_, i) => `<url><loc>https://ex.com/${i}</loc></url>\n`,
    );
    const body = bytes(urlset(inner.join('')));
    const r = await parseSitemap(body, { maxBytes: 10_000 });
    expect(r.truncated).toBe('max_bytes');
    expect(r.entries.length).toBeGreaterThan(100);
    expect(r.entries.length).toBeLessThan(1000);
    expect(r.errors.some((e) => /unclosed/.test(e))).toBe(false);
    expect((await parseSitemap(body, { maxBytes: body.length })).truncated).toBeNull();
  });

  it('keeps only the first 20 errors but counts them all', async () => {
    const r = await parseSitemap(
      bytes(Array.from({ length: 50 }, (_, i) => `bad ${i}`).join('\n')),
    );
    expect(r.errors).toHaveLength(20);
    expect(r.errorCount).toBe(50);
  });

  it('rejects invalid limits (a programming error, not bad input)', async () => {
    await expect(parseSitemap(bytes(''), { maxUrls: 0 })).rejects.toThrow(RangeError);
    await expect(parseSitemap(bytes(''), { maxBytes: 1.5 })).rejects.toThrow(RangeError);
  });
});

describe('parseSitemap: malformed input', () => {
  it('keeps entries before unclosed tags and reports them', async () => {
    const r = await parseSitemap(
      bytes(
        `<urlset><url><loc>https://ex.com/1</loc></url><url><loc>https://ex.com/2</loc>` +
          `<lastmod>2024-01-01</lastmod>`,
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/1', 'https://ex.com/2']);
    expect(r.errors[0]).toMatch(/^xml: .*unclosed tag: url/);
    expect(r.errors[1]).toMatch(/unfinished entry kept/);
  });

  it('keeps the document and reports garbage after the root', async () => {
    const r = await parseSitemap(
      bytes(`${urlset('<url><loc>https://ex.com/1</loc></url>')}<html>oops</html> trailing`),
    );
    expect(locs(r)).toEqual(['https://ex.com/1']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^xml: /);
  });

  it('stops at a broken tag in the middle, keeping what came before', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><loc>https://ex.com/1</loc></url><url><loc>https://ex.com/2</loc></url>` +
            `<url <<>><loc>https://ex.com/3</loc></url><url><loc>https://ex.com/4</loc></url>`,
        ),
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/1', 'https://ex.com/2']);
    expect(r.errors[0]).toMatch(/^xml: /);
  });

  it('stops at an undeclared entity (e.g. an HTML &nbsp;)', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(`<url><loc>https://ex.com/1</loc></url><url><loc>https://ex.com/&nbsp;</loc></url>`),
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/1']);
    expect(r.errors[0]).toMatch(/undefined entity/);
  });

  it('says when the body is HTML, another XML document, empty or blank', async () => {
    const html = await parseSitemap(bytes('<!DOCTYPE html><html><body>hi</body></html>'));
    expect(html).toMatchObject({ entries: [], truncated: null });
    expect(html.errors[0]).toMatch(/not a sitemap: root element <html>/);
    const rss = await parseSitemap(bytes('<?xml version="1.0"?><rss><channel/></rss>'));
    expect(rss.errors[0]).toMatch(/root element <rss>/);
    for (const blank of ['', ' \n\t ']) {
      expect(await parseSitemap(bytes(blank))).toMatchObject({
        entries: [],
        errors: ['empty sitemap'],
      });
    }
    const noRoot = await parseSitemap(bytes('<?xml version="1.0"?><!-- nothing -->'));
    expect(noRoot.errors[0]).toMatch(/root element/);
  });

  it('never throws on random bytes', async () => {
    let seed = 42;
    const rand = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 200; n++) {
      const len = Math.floor(rand() * 400);
      const body = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256));
      if (n % 2 === 0 && len > 0) body[0] = 0x3c; // '<': exercise the XML path too
      const r = await parseSitemap(body, { sitemapUrl: 'https://ex.com/s.xml' });
      expect(Array.isArray(r.entries)).toBe(true);
    }
  });
});
