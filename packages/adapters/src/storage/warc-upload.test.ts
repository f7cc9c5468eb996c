import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { WarcWriter, type HttpExchange, type WarcLocation } from '@crawler/adapters/warc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { openObjectStore, type ObjectStore } from './index';
import { startTestS3Server, type TestS3Server } from '@crawler/testing';

let server: TestS3Server;
let dir = '';
let store: ObjectStore;

beforeAll(async () => {
  server = await startTestS3Server();
  dir = await mkdtemp(join(tmpdir(), 'storage-warc-'));
  store = openObjectStore({
    kind: 's3',
    endpoint: server.endpoint,
    bucket: server.bucket,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Incompressible bodies, so a few exchanges fill a small file. */
const bodies = Array.from({ length: 8 }, (_, i) =>
  new TextEncoder().encode(
    `<html><body>page ${i} ${randomBytes(3000).toString('base64')}</body></html>`,
  ),
);

function exchange(i: number): HttpExchange {
  return {
    url: `https://example.com/page/${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i)),
    method: 'GET',
    requestHeaders: [['User-Agent', 'crawlerbot/0.1']],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/html']],
    body: bodies[i] ?? new Uint8Array(),
  };
}

describe('WARC files through the S3 store', () => {
  it('uploads rotated WARC files and reads single records back by (key, offset, length)', async () => {
    // Small files so the writer rotates: several keys, as an agent produces over a day.
    const writer = await WarcWriter.open({
      dir,
      prefix: 'crawl/2026-11-30/agent-1',
      software: 'crawler-test/0.1',
      maxFileBytes: 8_000,
    });
    const locations: WarcLocation[] = [];
    for (let i = 0; i < bodies.length; i++) locations.push(await writer.writeExchange(exchange(i)));
    await writer.close();

    const written = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)))
      .sort();
    expect(written.length).toBeGreaterThan(1);
    // What the agent would do on rotation and on close: upload under the same key.
    for (const key of written) await store.putFile(key, join(dir, key));

    const listed: string[] = [];
    for await (const e of store.list('crawl/2026-11-30/')) listed.push(e.key);
    expect(listed).toEqual(written);

    for (const [i, loc] of locations.entries()) {
      // The CDX lookup: one ranged GET of exactly the record's gzip member.
      const member = await store.readRange(loc.key, loc.offset, loc.length);
      const text = gunzipSync(member).toString('latin1');
      expect(text.startsWith('WARC/1.1\r\n')).toBe(true);
      expect(text).toContain('WARC-Type: response\r\n');
      expect(text).toContain(`WARC-Record-ID: ${loc.recordId}\r\n`);

      const record = await WARCParser.parse([member], { keepHeadersCase: true });
      expect(record?.warcTargetURI).toBe(`https://example.com/page/${i}`);
      expect(record?.warcPayloadDigest).toBe(loc.payloadDigest);
      const payload = await record?.contentText();
      expect(payload).toBe(new TextDecoder().decode(bodies[i]));
    }
  });
});
