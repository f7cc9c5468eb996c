import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import {
  readWarcFile,
  REVISIT_PROFILE_URIS,
  WarcWriter,
  type HttpExchange,
  type Revisit,
  type WarcLocation,
} from './index';

const URL_A = 'https://example.com/a';
const FIRST_DATE = new Date(Date.UTC(2026, 10, 1, 8, 0, 0, 250));

function exchange(extra: Partial<HttpExchange> = {}): HttpExchange {
  return {
    url: URL_A,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 500)),
    ip: '93.184.216.34',
    method: 'GET',
    requestHeaders: [['User-Agent', 'crawlerbot/0.1 (+https://example.org/bot)']],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/html']],
    body: new TextEncoder().encode('<html>same</html>'),
    ...extra,
  };
}

/** A 304 answering a conditional GET, headers as a server sends them. */
function notModified(extra: Partial<HttpExchange> = {}): HttpExchange {
  return exchange({
    status: 304,
    statusText: 'Not Modified',
    responseHeaders: [
      ['ETag', '"v1"'],
      ['Content-Encoding', 'gzip'],
      ['Content-Length', '1234'],
      ['Cache-Control', 'max-age=60'],
    ],
    body: new Uint8Array(0),
    ...extra,
  });
}

/** Every record of a file as warcio's own parser (HTTP parsing on) sees it. */
async function parseWithWarcio(path: string) {
  const parser = new WARCParser(createReadStream(path), { keepHeadersCase: true });
  const out: Array<{
    offset: number;
    type: string;
    warc: Map<string, string>;
    status: unknown;
    http: Map<string, string>;
    content: number;
  }> = [];
  for await (const record of parser) {
    const content = await record.readFully(false);
    const http = new Map<string, string>();
    for (const [name, value] of record.httpHeaders?.headers ?? []) http.set(name, value);
    out.push({
      offset: parser.offset,
      type: record.warcType,
      warc: new Map(record.warcHeaders.headers),
      status: record.httpHeaders?.statusCode,
      http,
      content: content.byteLength,
    });
  }
  return out;
}

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warc-revisit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('revisit records', () => {
  it('writes both profiles with the fields each has, readable by warcio with verified digests', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'rev', software: 'crawler/0.1.0' });
    const original = await writer.writeExchange(exchange({ fetchedAt: FIRST_DATE }));
    const earlier = {
      recordId: original.recordId,
      url: URL_A,
      date: FIRST_DATE,
      payloadDigest: original.payloadDigest,
    };
    const cases: Array<[string, HttpExchange, Revisit]> = [
      ['identical', exchange(), { profile: 'identical-payload-digest', original: earlier }],
      ['304 all known', notModified(), { profile: 'server-not-modified', original: earlier }],
      [
        '304 url and date',
        notModified(),
        { profile: 'server-not-modified', original: { url: URL_A, date: FIRST_DATE } },
      ],
      ['304 nothing known', notModified(), { profile: 'server-not-modified' }],
      [
        '304 no headers, truncated',
        notModified({ responseHeaders: [], truncated: 'time' }),
        { profile: 'server-not-modified' },
      ],
      [
        'identical, truncated',
        exchange({ truncated: 'length' }),
        { profile: 'identical-payload-digest', original: earlier },
      ],
    ];
    const locs = new Map<string, WarcLocation>();
    for (const [name, ex, revisit] of cases) locs.set(name, await writer.writeRevisit(ex, revisit));
    const path = join(dir, writer.currentKey());
    await writer.close();

    const records = await parseWithWarcio(path);
    const at = (name: string) => {
      const record = records.find((r) => r.offset === locs.get(name)?.offset);
      if (!record) throw new Error(`no record for ${name}`);
      expect(record.type).toBe('revisit');
      expect(record.content).toBe(0); // headers only, never a payload
      return record;
    };

    const identical = at('identical');
    expect(identical.warc.get('WARC-Profile')).toBe(
      REVISIT_PROFILE_URIS['identical-payload-digest'],
    );
    expect(identical.warc.get('WARC-Profile')).toBe(
      'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
    );
    expect(identical.warc.get('WARC-Refers-To')).toBe(original.recordId);
    expect(identical.warc.get('WARC-Refers-To-Target-URI')).toBe(URL_A);
    expect(identical.warc.get('WARC-Refers-To-Date')).toBe(FIRST_DATE.toISOString());
    expect(identical.warc.get('WARC-Payload-Digest')).toBe(original.payloadDigest);
    expect(identical.warc.has('WARC-Truncated')).toBe(false);
    expect(identical.status).toBe(200);
    expect(locs.get('identical')?.payloadDigest).toBe(original.payloadDigest);

    const known = at('304 all known');
    expect(known.warc.get('WARC-Profile')).toBe(
      'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
    );
    expect(known.warc.get('WARC-Refers-To')).toBe(original.recordId);
    expect(known.warc.get('WARC-Refers-To-Target-URI')).toBe(URL_A);
    expect(known.warc.get('WARC-Refers-To-Date')).toBe(FIRST_DATE.toISOString());
    expect(known.warc.get('WARC-Payload-Digest')).toBe(original.payloadDigest);
    expect(known.warc.get('WARC-IP-Address')).toBe('93.184.216.34');
    expect(known.status).toBe(304);
    // The 304's headers as received: nothing was decoded, so nothing is rewritten.
    expect([...known.http]).toEqual([
      ['ETag', '"v1"'],
      ['Content-Encoding', 'gzip'],
      ['Content-Length', '1234'],
      ['Cache-Control', 'max-age=60'],
    ]);

    const partial = at('304 url and date');
    expect(partial.warc.get('WARC-Refers-To-Target-URI')).toBe(URL_A);
    expect(partial.warc.get('WARC-Refers-To-Date')).toBe(FIRST_DATE.toISOString());
    expect(partial.warc.has('WARC-Refers-To')).toBe(false);
    expect(partial.warc.has('WARC-Payload-Digest')).toBe(false);
    expect(locs.get('304 url and date')?.payloadDigest).toBe('');

    const bare = at('304 nothing known');
    expect(bare.warc.get('WARC-Profile')).toBe(REVISIT_PROFILE_URIS['server-not-modified']);
    for (const field of [
      'WARC-Refers-To',
      'WARC-Refers-To-Target-URI',
      'WARC-Refers-To-Date',
      'WARC-Payload-Digest',
    ]) {
      expect(bare.warc.has(field)).toBe(false);
    }
    expect(bare.status).toBe(304);

    const headless = at('304 no headers, truncated');
    expect(headless.status).toBe(304);
    expect(headless.http.size).toBe(0);
    expect(headless.warc.get('WARC-Truncated')).toBe('time');

    expect(at('identical, truncated').warc.get('WARC-Truncated')).toBe('length');

    // Our reader checks every block digest (and payload digests except on revisits, whose
    // payload is the original's).
    const read = [];
    for await (const record of readWarcFile(path)) read.push(record);
    expect(read.map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'request',
      ...cases.map(() => 'revisit'),
    ]);
    expect(read.every((r) => r.digestsOk)).toBe(true);
    expect(read.every((r) => r.headers['WARC-Block-Digest'])).toBe(true);
    expect(read[0]?.headers['WARC-Payload-Digest']).toBeUndefined();
    expect(read.filter((r) => r.type === 'revisit').map((r) => r.httpStatus)).toEqual([
      200, 304, 304, 304, 304, 200,
    ]);
  });

  it('refuses an identical-payload-digest revisit without the original digest', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'bad', software: 'crawler/0.1.0' });
    const incomplete = {
      profile: 'identical-payload-digest',
      original: { recordId: '<urn:uuid:x>', url: URL_A, date: FIRST_DATE },
    } as unknown as Revisit;
    await expect(writer.writeRevisit(exchange(), incomplete)).rejects.toMatchObject({
      code: 'WARC_BAD_REVISIT',
    });
    await expect(
      writer.writeRevisit(notModified(), {
        profile: 'server-not-modified',
        original: { date: new Date(Number.NaN) },
      }),
    ).rejects.toMatchObject({ code: 'WARC_BAD_REVISIT' });
    // A refused revisit leaves the writer usable.
    await writer.writeRevisit(notModified(), { profile: 'server-not-modified' });
    await writer.close();
  });
});
