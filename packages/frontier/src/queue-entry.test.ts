import { describe, expect, it } from 'vitest';
import { decodeEntry, decodeTagged, encodeEntry, FrontierDataError } from './queue-entry';

const base = { urlFp: '0123456789abcdef', depth: 2, url: 'http://a.test/x|y?z=1' };

describe('queue entries', () => {
  it('round-trip without a prior capture, the URL kept whole even with "|" in it', () => {
    const raw = encodeEntry({ ...base, source: 'seed' });
    expect(raw).toBe('0123456789abcdef|0|2|0|S|http://a.test/x|y?z=1');
    expect(decodeEntry(raw)).toEqual({
      urlFp: base.urlFp,
      attempts: 0,
      depth: 2,
      redirects: 0,
      source: 'seed',
      hops: 0,
      url: base.url,
    });
  });

  it('carry the hop counter after the source letter, only when it is not 0', () => {
    const raw = encodeEntry({ ...base, hops: 3 });
    expect(raw).toBe('0123456789abcdef|0|2|0|L3|http://a.test/x|y?z=1');
    expect(decodeEntry(raw).hops).toBe(3);
    expect(decodeTagged(`1|${raw}`)).toMatchObject({ tier: '1', hops: 3, source: 'link' });
  });

  it('carry a re-crawl prior capture (validators, record to refer to) through a lease', () => {
    const prior = {
      etag: 'W/"a|b;c"',
      lastModified: 'Mon, 30 Nov 2026 08:00:00 GMT',
      recordId: '<urn:uuid:6d2c1c5e-0000-4000-8000-000000000001>',
      capturedAt: 1_796_000_000_000,
      payloadDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      sha256: 'a'.repeat(64),
    };
    const raw = encodeEntry({ ...base, source: 'recrawl', prior });
    const leased = decodeTagged(`r|${raw}`);
    expect(leased).toMatchObject({ tier: 'r', source: 'recrawl', url: base.url, prior });
  });

  it('drop a prior capture that does not validate, keeping the URL', () => {
    const junk = Buffer.from(JSON.stringify({ etag: 5, extra: true })).toString('base64url');
    const leased = decodeTagged(`r|0123456789abcdef|0|1|0|C;${junk}|http://a.test/`);
    expect(leased.url).toBe('http://a.test/');
    expect(leased.prior).toBeUndefined();
    // Not base64url at all: not something the frontier wrote.
    expect(() => decodeTagged('r|0123456789abcdef|0|1|0|C;!!|http://a.test/')).toThrow(
      FrontierDataError,
    );
  });
});
