import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { WARCRecord, WARC_1_1 } from 'warcio';
import { parseWarcRecord } from './read-warc';
import { gzipOptions, serializeRecord } from './serialize-record';
import { sha1Digest } from './warc-digest';

const fields = new TextEncoder().encode('via: https://example.com/\r\nfetchTimeMs: 12\r\n');

describe('serializeRecord', () => {
  it.each(['metadata', 'warcinfo'] as const)(
    'never writes WARC-Payload-Digest on a %s record, and its block digest verifies',
    async (type) => {
      const record = WARCRecord.create({
        url: 'https://example.com/a',
        type,
        warcVersion: WARC_1_1,
        // Whatever a builder puts there (any letter case), the serializer owns these fields.
        warcHeaders: [
          ['WARC-Record-ID', '<urn:uuid:00000000-0000-4000-8000-000000000001>'],
          ['warc-payload-digest', 'sha1:AAAA'],
          ['Content-Length', '1'],
        ],
      });
      const bytes = serializeRecord(record, fields, sha1Digest(fields), 3);
      const read = await parseWarcRecord(bytes, 'test', 0);
      expect(read.type).toBe(type);
      expect(Object.keys(read.headers).map((h) => h.toLowerCase())).not.toContain(
        'warc-payload-digest',
      );
      expect(read.headers['WARC-Block-Digest']).toBe(sha1Digest(fields));
      expect(read.headers['Content-Length']).toBe(String(fields.byteLength));
      expect(read.digestsOk).toBe(true);
      expect(Buffer.from(read.payload).equals(Buffer.from(fields))).toBe(true);
    },
  );

  it('writes the given payload digest on a resource record', async () => {
    const record = WARCRecord.create({
      url: 'https://example.com/robots.txt',
      type: 'resource',
      warcVersion: WARC_1_1,
    });
    const body = new TextEncoder().encode('User-agent: *\nDisallow:\n');
    const read = await parseWarcRecord(serializeRecord(record, body, sha1Digest(body), 3), 't', 0);
    expect(read.headers['WARC-Payload-Digest']).toBe(sha1Digest(body));
    expect(read.digestsOk).toBe(true);
  });

  it.each([0, 1, 300, 5000, 40_000, 200_000])(
    'gzips a record with a %i-byte payload into one member that reads back whole',
    async (size) => {
      const record = WARCRecord.create({
        url: 'https://example.com/blob',
        type: 'resource',
        warcVersion: WARC_1_1,
      });
      // Text-like, compressible, but not trivially so.
      const body = Buffer.alloc(size);
      for (let i = 0; i < size; i++) body[i] = 97 + ((i * 7919) % 23) + (i % 97 === 0 ? 1 : 0);
      const bytes = serializeRecord(record, body, sha1Digest(body), 3);
      const read = await parseWarcRecord(bytes, 't', 0);
      expect(read.digestsOk).toBe(true);
      expect(Buffer.from(read.payload).equals(body)).toBe(true);
      expect(gunzipSync(bytes).byteLength).toBeGreaterThan(size);
    },
  );

  it('sizes the deflate window to cover the record, within zlib limits', () => {
    for (const size of [0, 100, 250, 1000, 11_000, 32_000, 33_000, 1_000_000]) {
      const o = gzipOptions(size, 3);
      expect(o.windowBits).toBeGreaterThanOrEqual(9);
      expect(o.windowBits).toBeLessThanOrEqual(15);
      if (o.windowBits < 15) expect(1 << o.windowBits).toBeGreaterThanOrEqual(size + 262);
      expect(o.memLevel).toBeGreaterThanOrEqual(1);
      expect(o.memLevel).toBeLessThanOrEqual(8);
      expect(o.chunkSize).toBeGreaterThanOrEqual(1024);
      expect(o.level).toBe(3);
    }
    expect(gzipOptions(1_000_000, 3)).toMatchObject({ windowBits: 15, memLevel: 8 });
  });
});
