import { describe, expect, it } from 'vitest';
import { WARCRecord, WARC_1_1 } from 'warcio';
import { parseWarcRecord } from './read-warc';
import { serializeRecord } from './serialize-record';
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
});
