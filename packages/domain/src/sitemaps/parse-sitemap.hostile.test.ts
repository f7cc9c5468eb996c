import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap } from './parse-sitemap';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/** gzip of `total` bytes of `fill` repeated, built streaming (never holds the plain bytes). */
async function gzipOf(prefix: string, fill: number, total: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const block = Buffer.alloc(1024 * 1024, fill);
  gzip.write(prefix);
  for (let written = prefix.length; written < total; written += block.length) {
    if (!gzip.write(block)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(out);
}

/** Runs `work`, sampling RSS growth over the baseline every few ms; returns the peak (bytes). */
async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

const MB = 1024 * 1024;

describe('parseSitemap against hostile bodies', () => {
  it('stops a 200 MB gzip bomb of zeros at the 50 MiB cap, quickly, with bounded memory', async () => {
    const bomb = await gzipOf('', 0, 200 * MB);
    expect(bomb.length).toBeLessThan(1 * MB);
    const started = performance.now();
    const { value: r, growth } = await peakRssGrowth(() => parseSitemap(bomb));
    const ms = performance.now() - started;
    expect(r.truncated).toBe('max_bytes');
    expect(r.entries).toEqual([]);
    expect(r.errors[0]).toMatch(/line longer than/);
    expect(ms).toBeLessThan(3000);
    expect(growth).toBeLessThan(64 * MB);
  });

  it('stops an XML gzip bomb (one endless text node) without buffering it', async () => {
    const bomb = await gzipOf('<urlset><url><loc>https://ex.com/', 0x61, 64 * MB);
    const { value: r, growth } = await peakRssGrowth(() => parseSitemap(bomb));
    expect(r.entries).toEqual([]);
    expect(r.errors[0]).toMatch(/without a tag/);
    expect(growth).toBeLessThan(64 * MB);
  });

  it('stops exactly at maxBytes of inflated output, keeping every entry completed before it', async () => {
    const entry = '<url><loc>https://ex.com/p</loc></url>\n';
    const body = await gzipOf(`<urlset>${entry.repeat(100_000)}`, 0x20, 0);
    // Cut inside the 1,001st <loc>: exactly 1,000 entries.
    const inLoc = await parseSitemap(body, { maxBytes: 8 + 1000 * entry.length + 20 });
    expect(inLoc.truncated).toBe('max_bytes');
    expect(inLoc.entries).toHaveLength(1000);
    expect(inLoc.errors).toEqual([]);
    // Cut right after the 1,001st </loc>: that entry's loc is complete, so it is kept and noted.
    const afterLoc = await parseSitemap(body, { maxBytes: 8 + 1000 * entry.length + 32 });
    expect(afterLoc.entries).toHaveLength(1001);
    expect(afterLoc.errors).toEqual([
      'unfinished entry kept (its <loc> was complete): "https://ex.com/p"',
    ]);
  });

  it('does not expand billion laughs: no entries, no blow-up, well under a second', async () => {
    const levels = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) {
      levels.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    }
    const dtd = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${levels.join('\n')}\n]>\n`;
    for (const doc of [
      `${dtd}<lolz>&lol9;</lolz>`,
      `${dtd}<urlset><url><loc>https://ex.com/&lol9;</loc></url></urlset>`,
      `${dtd}<urlset><url><loc>https://ex.com/a</loc></url><url><loc>&lol9;</loc></url></urlset>`,
    ]) {
      const started = performance.now();
      const r = await parseSitemap(bytes(doc));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(r.entries.every((e) => e.loc === 'https://ex.com/a')).toBe(true);
      expect(r.errors.length).toBeGreaterThan(0);
      expect(JSON.stringify(r).length).toBeLessThan(10_000);
    }
  });

  it('does not fetch or expand external entities', async () => {
    const doc =
      `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` +
      `<urlset><url><loc>https://ex.com/&xxe;</loc></url></urlset>`;
    const r = await parseSitemap(bytes(doc));
    expect(r.entries).toEqual([]);
    expect(r.errors[0]).toMatch(/undefined entity/);
  });

  it('skips a huge single line of a text sitemap and reads the lines after it', async () => {
    const huge = `https://ex.com/${'a'.repeat(20 * MB)}`;
    const r = await parseSitemap(bytes(`https://ex.com/1\n${huge}\nhttps://ex.com/2\n`));
    expect(r.entries.map((e) => e.loc)).toEqual(['https://ex.com/1', 'https://ex.com/2']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/line longer than/);
    expect(r.errors[0]?.length).toBeLessThan(300);
  });

  it('stops deeply nested elements and a huge DTD', async () => {
    const deep = await parseSitemap(bytes(`<urlset>${'<a>'.repeat(100_000)}`));
    expect(deep.errors[0]).toMatch(/nested deeper/);
    const dtd = await parseSitemap(
      bytes(`<!DOCTYPE urlset [<!-- ${'x'.repeat(3 * MB)} -->]><urlset></urlset>`),
    );
    expect(dtd.errors[0]).toMatch(/without a tag/);
  });
});
