import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyntheticWeb, type SyntheticWeb } from '../index.js';
import { httpGet } from '../testing/http-get.js';

/** The realistic profile over plain HTTP (no certificate given: no host speaks TLS). */
describe('the realistic web', () => {
  let web: SyntheticWeb;
  beforeAll(async () => {
    web = await startSyntheticWeb({ hosts: 60, seed: 3, profile: 'realistic' });
  });
  afterAll(async () => {
    await web.close();
  });

  /** Every home page, asked with and without Accept-Encoding. */
  async function homes(): Promise<
    Array<{ plain: Buffer; encoded: Buffer; encoding: string | undefined; etag: unknown }>
  > {
    // Hosts side by side (some are slow or trickle by design), one request at a time on each.
    const all = await Promise.all(
      web.hosts.map(async (h) => {
        const plain = await httpGet(h.ip, web.port, h.host, '/');
        const enc = await httpGet(h.ip, web.port, h.host, '/', {
          headers: { 'Accept-Encoding': 'gzip, br' },
        });
        if (plain.status !== 200 || enc.status !== 200) return null;
        expect(enc.headers.etag).toBe(plain.headers.etag);
        return {
          plain: plain.body,
          encoded: enc.body,
          encoding: enc.headers['content-encoding'],
          etag: enc.headers.etag,
        };
      }),
    );
    return all.filter((x) => x !== null);
  }

  it('serves pages whose gzip (members made beforehand) and br bodies decode to the plain bytes', async () => {
    const pages = await homes();
    const by = (e: string | undefined) => pages.filter((p) => p.encoding === e);
    expect(by('gzip').length).toBeGreaterThan(10);
    expect(by('br').length).toBeGreaterThan(5);
    for (const p of by('gzip')) expect(gunzipSync(p.encoded).equals(p.plain)).toBe(true);
    for (const p of by('br')) expect(brotliDecompressSync(p.encoded).equals(p.plain)).toBe(true);
    for (const p of by(undefined)) expect(p.encoded.equals(p.plain)).toBe(true);
    // Compressed on the wire as text is: well under half the bytes.
    const gz = by('gzip');
    const ratio =
      gz.reduce((a, p) => a + p.encoded.length, 0) / gz.reduce((a, p) => a + p.plain.length, 0);
    expect(ratio).toBeLessThan(0.5);
  });

  it('renders a page alike every time, and its size heavy-tailed around tens of kB', async () => {
    const pages = await homes();
    const again = await homes();
    expect(again.map((p) => p.plain.toString('base64'))).toEqual(
      pages.map((p) => p.plain.toString('base64')),
    );
    const sizes = pages.map((p) => p.plain.length).sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)]!;
    expect(median).toBeGreaterThan(15_000);
    expect(median).toBeLessThan(200_000);
    expect(sizes.at(-1)!).toBeGreaterThan(2 * median);
    // Each page links, and is HTML to its end.
    for (const p of pages) {
      const html = p.plain.toString('utf8');
      expect(html).toMatch(/<a href=/);
      expect(html.trimEnd().endsWith('</html>')).toBe(true);
    }
  });
});
