import { describe, expect, it } from 'vitest';
import { parseSitemap } from './parse-sitemap';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const urlset = (inner: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">\n${inner}</urlset>\n`;
const locs = (r: { entries: { loc: string }[] }): string[] => r.entries.map((e) => e.loc);

describe('parseSitemap: urlset', () => {
  it('reads loc, lastmod, changefreq and priority', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><loc>https://ex.com/a?x=1&amp;y=2</loc><lastmod>2024-06-01T12:30:00+02:00</lastmod>` +
            `<changefreq>Daily</changefreq><priority>0.8</priority></url>\n` +
            `<url><loc> https://ex.com/b </loc><lastmod>2024-05</lastmod></url>\n`,
        ),
      ),
    );
    expect(r).toEqual({
      kind: 'urlset',
      entries: [
        {
          loc: 'https://ex.com/a?x=1&y=2',
          lastmod: new Date('2024-06-01T10:30:00Z'),
          changefreq: 'daily',
          priority: 0.8,
        },
        {
          loc: 'https://ex.com/b',
          lastmod: new Date('2024-05-01T00:00:00Z'),
          changefreq: null,
          priority: null,
        },
      ],
      truncated: null,
      errors: [],
      errorCount: 0,
    });
  });

  it('keeps an entry with invalid optional fields, nulls them and reports each', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><loc>https://ex.com/a</loc><lastmod>yesterday</lastmod>` +
            `<changefreq>sometimes</changefreq><priority>1.5</priority></url>`,
        ),
      ),
    );
    expect(r.entries).toEqual([
      { loc: 'https://ex.com/a', lastmod: null, changefreq: null, priority: null },
    ]);
    expect(r.errors).toHaveLength(3);
    expect(r.errors.join('\n')).toMatch(/lastmod.*changefreq.*priority/s);
  });

  it('skips entries without a usable loc and says why', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><lastmod>2024-01-01</lastmod></url><url><loc>ftp://ex.com/f</loc></url>` +
            `<url><loc>javascript:alert(1)</loc></url><url><loc></loc></url>` +
            `<url><loc>https://ex.com/${'x'.repeat(2100)}</loc></url><url/>` +
            `<url><loc>https://ex.com/ok</loc></url>`,
        ),
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/ok']);
    expect(r.errorCount).toBe(6);
    expect(r.errors[0]).toMatch(/without <loc>/);
    expect(r.errors[1]).toMatch(/not an absolute http\(s\) URL: "ftp:/);
    expect(r.errors[4]).toMatch(/longer than 2048/);
  });

  it('decodes CDATA, the XML entities and character references', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><loc><![CDATA[https://ex.com/c?a=1&b=2]]></loc></url>` +
            `<url><loc>https://ex.com/&lt;&gt;&quot;&apos;&#x41;&#66;</loc></url>`,
        ),
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/c?a=1&b=2', "https://ex.com/%3C%3E%22'AB"]);
    expect(r.errors).toEqual([]);
  });

  it('uses the first of duplicated fields and reports the rest', async () => {
    const r = await parseSitemap(
      bytes(urlset(`<url><loc>https://ex.com/1</loc><loc>https://ex.com/2</loc></url>`)),
    );
    expect(locs(r)).toEqual(['https://ex.com/1']);
    expect(r.errors[0]).toMatch(/duplicate <loc>/);
  });
});

describe('parseSitemap: namespaces and names', () => {
  const entry = '<url><loc>https://ex.com/p</loc><lastmod>2024-01-02</lastmod></url>';

  it('reads a document without a namespace', async () => {
    const r = await parseSitemap(bytes(`<urlset>${entry}</urlset>`));
    expect(locs(r)).toEqual(['https://ex.com/p']);
    expect(r.errors).toEqual([]);
  });

  it('reads a prefixed sitemap namespace', async () => {
    const r = await parseSitemap(
      bytes(
        `<sm:urlset xmlns:sm="${NS}"><sm:url><sm:loc>https://ex.com/p</sm:loc>` +
          `<sm:priority>0.3</sm:priority></sm:url></sm:urlset>`,
      ),
    );
    expect(r.entries).toEqual([
      { loc: 'https://ex.com/p', lastmod: null, changefreq: null, priority: 0.3 },
    ]);
  });

  it('ignores extension elements (image, xhtml) and their locs', async () => {
    const r = await parseSitemap(
      bytes(
        `<urlset xmlns="${NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" ` +
          `xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://ex.com/p</loc>` +
          `<image:image><image:loc>https://cdn.ex.com/i.png</image:loc></image:image>` +
          `<xhtml:link rel="alternate" hreflang="de" href="https://ex.com/de/p"/>` +
          `<image:loc>https://cdn.ex.com/j.png</image:loc></url></urlset>`,
      ),
    );
    expect(locs(r)).toEqual(['https://ex.com/p']);
    expect(r.errors).toEqual([]);
  });

  it('matches element names case-sensitively, as the protocol says', async () => {
    const upper = await parseSitemap(
      bytes(`<URLSET><URL><LOC>https://ex.com/p</LOC></URL></URLSET>`),
    );
    expect(upper.entries).toEqual([]);
    expect(upper.errors[0]).toMatch(/not a sitemap: root element <URLSET>/);
    const field = await parseSitemap(
      bytes(`<urlset><url><Loc>https://ex.com/p</Loc></url></urlset>`),
    );
    expect(field.entries).toEqual([]);
    expect(field.errors[0]).toMatch(/without <loc>/);
  });
});

describe('parseSitemap: sitemap index', () => {
  it('lists child sitemaps with their lastmod', async () => {
    const r = await parseSitemap(
      bytes(
        `<?xml version="1.0"?><sitemapindex xmlns="${NS}">` +
          `<sitemap><loc>https://ex.com/s1.xml.gz</loc><lastmod>2024-06-01</lastmod></sitemap>` +
          `<sitemap><loc>https://ex.com/deep/s2.xml</loc></sitemap></sitemapindex>`,
      ),
      { sitemapUrl: 'https://ex.com/sitemaps/index.xml' },
    );
    expect(r.kind).toBe('sitemapindex');
    expect(r.entries).toEqual([
      {
        loc: 'https://ex.com/s1.xml.gz',
        lastmod: new Date('2024-06-01T00:00:00Z'),
        changefreq: null,
        priority: null,
      },
      { loc: 'https://ex.com/deep/s2.xml', lastmod: null, changefreq: null, priority: null },
    ]);
    // An index may point anywhere on its own host: no scope errors.
    expect(r.errors).toEqual([]);
  });

  it('does not read <url> elements inside an index', async () => {
    const r = await parseSitemap(
      bytes(`<sitemapindex><url><loc>https://ex.com/p</loc></url></sitemapindex>`),
    );
    expect(r).toMatchObject({ kind: 'sitemapindex', entries: [] });
  });
});

describe('parseSitemap: locs, scope and relative URLs', () => {
  it('resolves relative locs against sitemapUrl and flags (but keeps) out-of-scope ones', async () => {
    const r = await parseSitemap(
      bytes(
        urlset(
          `<url><loc>page.html</loc></url><url><loc>/catalog/x</loc></url>` +
            `<url><loc>/other/y</loc></url><url><loc>https://elsewhere.com/catalog/z</loc></url>` +
            `<url><loc>http://ex.com/catalog/w</loc></url>`,
        ),
      ),
      { sitemapUrl: 'https://ex.com/catalog/sitemap.xml' },
    );
    expect(locs(r)).toEqual([
      'https://ex.com/catalog/page.html',
      'https://ex.com/catalog/x',
      'https://ex.com/other/y',
      'https://elsewhere.com/catalog/z',
      'http://ex.com/catalog/w',
    ]);
    expect(r.errors).toEqual([
      `loc outside the sitemap's path (kept): "https://ex.com/other/y"`,
      `loc outside the sitemap's host (kept): "https://elsewhere.com/catalog/z"`,
      `loc outside the sitemap's host (kept): "http://ex.com/catalog/w"`,
    ]);
  });

  it('widens the scope to the host with scopeUrl (a sitemap named in robots.txt)', async () => {
    const body = bytes(
      urlset(`<url><loc>/products/p1</loc></url><url><loc>https://b.com/x</loc></url>`),
    );
    const r = await parseSitemap(body, {
      sitemapUrl: 'https://ex.com/sitemaps/part-1.xml',
      scopeUrl: 'https://ex.com/robots.txt',
    });
    expect(locs(r)).toEqual(['https://ex.com/products/p1', 'https://b.com/x']);
    expect(r.errors).toEqual([`loc outside the sitemap's host (kept): "https://b.com/x"`]);
    const strict = await parseSitemap(body, { sitemapUrl: 'https://ex.com/sitemaps/part-1.xml' });
    expect(strict.errors[0]).toMatch(/outside the sitemap's path/);
    const badScope = await parseSitemap(body, {
      sitemapUrl: 'https://ex.com/sitemaps/part-1.xml',
      scopeUrl: 'robots.txt',
    });
    expect(badScope.errors[0]).toMatch(/scopeUrl/);
    expect(badScope.errors[1]).toMatch(/outside the sitemap's path/);
  });

  it('rejects relative locs when no sitemapUrl is given', async () => {
    const r = await parseSitemap(bytes(urlset(`<url><loc>/a</loc></url>`)));
    expect(r.entries).toEqual([]);
    expect(r.errors[0]).toMatch(/not an absolute http\(s\) URL: "\/a"/);
  });

  it('reports an unusable sitemapUrl and carries on', async () => {
    const r = await parseSitemap(bytes(urlset(`<url><loc>https://ex.com/a</loc></url>`)), {
      sitemapUrl: 'not a url',
    });
    expect(locs(r)).toEqual(['https://ex.com/a']);
    expect(r.errors[0]).toMatch(/sitemapUrl/);
  });
});
