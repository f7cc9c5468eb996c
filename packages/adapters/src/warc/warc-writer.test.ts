import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import {
  readWarcFile,
  readWarcRecordAt,
  WarcWriter,
  type HttpExchange,
  type WarcLocation,
  type WarcReadRecord,
} from './index';

/** Base32 written differently from the module's (bit string), so the test checks it independently. */
function sha1Base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...createHash('sha1').update(bytes).digest()]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return `sha1:${out}`;
}

function exchange(i: number, body: Uint8Array, extra: Partial<HttpExchange> = {}): HttpExchange {
  return {
    url: `https://example.com/page/${i}?q=${i}`,
    fetchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, i, 123)),
    ip: '93.184.216.34',
    method: 'GET',
    requestHeaders: [
      ['User-Agent', 'crawlerbot/0.1 (+https://example.org/bot)'],
      ['Accept', 'text/html'],
    ],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [
      ['Content-Type', 'text/html; charset=utf-8'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ],
    body,
    ...extra,
  };
}

async function collect(path: string, chunkBytes?: number): Promise<WarcReadRecord[]> {
  const out: WarcReadRecord[] = [];
  for await (const r of readWarcFile(path, chunkBytes ? { chunkBytes } : {})) out.push(r);
  return out;
}

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warc-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('WarcWriter round trip', () => {
  const bodies = [
    new TextEncoder().encode('<html><body>hello</body></html>'),
    randomBytes(20_000),
    new Uint8Array(0),
    new TextEncoder().encode('é'.repeat(5000)),
    randomBytes(70_000),
  ];

  async function writeAll(): Promise<{ writer: WarcWriter; locs: WarcLocation[]; path: string }> {
    const writer = await WarcWriter.open({
      dir,
      prefix: 'crawl/2026-11-30/agent-1',
      software: 'crawler/0.1.0',
      operator: 'ops@example.org',
    });
    // Overlapping calls: the writer must serialize them.
    const locs = await Promise.all(bodies.map((b, i) => writer.writeExchange(exchange(i, b))));
    const path = join(dir, writer.currentKey());
    await writer.close();
    return { writer, locs, path };
  }

  it('writes warcinfo then response/request pairs that read back with verified digests', async () => {
    const { locs, path } = await writeAll();
    expect(locs.every((l) => l.key === 'crawl/2026-11-30/agent-1/00000.warc.gz')).toBe(true);
    const records = await collect(path);
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      ...bodies.flatMap(() => ['response', 'request']),
    ]);

    const info = records[0]!;
    expect(info.headers['WARC-Payload-Digest']).toBeUndefined();
    expect(info.headers['WARC-Filename']).toBe('00000.warc.gz');
    expect(new TextDecoder().decode(info.payload)).toContain('software: crawler/0.1.0');
    expect(new TextDecoder().decode(info.payload)).toContain('operator: ops@example.org');

    bodies.forEach((body, i) => {
      const response = records[1 + 2 * i]!;
      const request = records[2 + 2 * i]!;
      const loc = locs[i]!;
      expect(response.digestsOk && request.digestsOk).toBe(true);
      expect(Buffer.from(response.payload).equals(Buffer.from(body))).toBe(true);
      expect(response.recordId).toBe(loc.recordId);
      expect(response.offset).toBe(loc.offset);
      expect(response.length).toBe(loc.length);
      expect(response.httpStatus).toBe(200);
      expect(response.targetUri).toBe(`https://example.com/page/${i}?q=${i}`);
      expect(response.date).toBe(new Date(Date.UTC(2026, 10, 30, 12, 0, i, 123)).toISOString());
      expect(response.headers['WARC-IP-Address']).toBe('93.184.216.34');
      expect(response.headers['WARC-Payload-Digest']).toBe(sha1Base32(body));
      expect(loc.payloadDigest).toBe(sha1Base32(body));
      // Block digest over the exact bytes of HTTP headers + payload.
      const block = Buffer.concat([
        Buffer.from(
          'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n',
        ),
        body,
      ]);
      expect(response.headers['WARC-Block-Digest']).toBe(sha1Base32(block));
      expect(response.headers['WARC-Concurrent-To']).toBe(request.recordId);
      expect(request.headers['WARC-Concurrent-To']).toBe(response.recordId);
      expect(request.httpStatus).toBeNull();
      expect(request.httpHeaders?.['Host']).toBe('example.com');
      expect(response.httpHeaders?.['Set-Cookie']).toBe('a=1, b=2');
    });
  });

  it('is readable by warcio’s own parser, which sees the same digests and HTTP parts', async () => {
    const { locs, path } = await writeAll();
    const parser = new WARCParser(createReadStream(path), { keepHeadersCase: true });
    const seen: Array<{
      type: string;
      digest: string | null | undefined;
      status: unknown;
      body: Buffer;
      offset: number;
    }> = [];
    for await (const record of parser) {
      const content = await record.readFully(true);
      seen.push({
        type: record.warcType,
        digest: record.warcPayloadDigest,
        status: record.httpHeaders?.statusCode,
        body: Buffer.from(content),
        offset: parser.offset,
      });
    }
    const responses = seen.filter((s) => s.type === 'response');
    expect(responses).toHaveLength(bodies.length);
    responses.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.digest).toBe(sha1Base32(bodies[i]!));
      expect(r.body.equals(Buffer.from(bodies[i]!))).toBe(true);
      expect(r.offset).toBe(locs[i]!.offset);
    });
  });

  it('gives offsets and lengths that read one record alone', async () => {
    const { locs, path } = await writeAll();
    const file = await readFile(path);
    for (const [i, loc] of locs.entries()) {
      const slice = file.subarray(loc.offset, loc.offset + loc.length);
      const raw = gunzipSync(slice); // exactly one gzip member
      expect(raw.subarray(0, 9).toString()).toBe('WARC/1.1\r');
      const record = await readWarcRecordAt(path, loc.offset, loc.length);
      expect(record.recordId).toBe(loc.recordId);
      expect(record.digestsOk).toBe(true);
      expect(Buffer.from(record.payload).equals(Buffer.from(bodies[i]!))).toBe(true);
    }
    // Streaming with small chunks still reports the same offsets.
    const streamed = (await collect(path, 1000)).filter((r) => r.type === 'response');
    expect(streamed.map((r) => [r.offset, r.length])).toEqual(
      locs.map((l) => [l.offset, l.length]),
    );
    const all = await collect(path, 1000);
    const last = all[all.length - 1]!;
    expect(last.offset + last.length).toBe(file.byteLength);
  });
});

describe('WarcWriter headers', () => {
  it('drops encodings of the decoded body, keeps the originals, marks truncation', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'p', software: 'crawler/0.1.0' });
    const body = new TextEncoder().encode('decoded body');
    const loc = await writer.writeExchange(
      exchange(1, body, {
        responseHeaders: [
          ['Content-Type', 'text/plain'],
          ['Content-Encoding', 'gzip'],
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '999'],
        ],
        truncated: 'length',
        statusText: '',
        status: 404,
      }),
    );
    await writer.close();
    const record = await readWarcRecordAt(join(dir, loc.key), loc.offset, loc.length);
    expect(record.httpStatus).toBe(404);
    expect(record.headers['WARC-Truncated']).toBe('length');
    expect(record.httpHeaders).toEqual({
      'Content-Type': 'text/plain',
      'X-Crawler-Original-Content-Encoding': 'gzip',
      'X-Crawler-Original-Transfer-Encoding': 'chunked',
      'X-Crawler-Original-Content-Length': '999',
      'Content-Length': String(body.byteLength),
    });
    expect(record.digestsOk).toBe(true);
  });
});

describe('WarcWriter rotation', () => {
  it('starts a new file past maxFileBytes, each beginning with warcinfo', async () => {
    const writer = await WarcWriter.open({
      dir,
      prefix: 'rot',
      software: 'crawler/0.1.0',
      maxFileBytes: 50_000,
    });
    const locs: WarcLocation[] = [];
    for (let i = 0; i < 8; i++)
      locs.push(await writer.writeExchange(exchange(i, randomBytes(20_000))));
    await writer.close();

    // ~20.6 kB per exchange: a file passes 50 kB on its third exchange, so 3 + 3 + 2.
    const files = (await readdir(join(dir, 'rot'))).sort();
    expect(files).toEqual(['00000.warc.gz', '00001.warc.gz', '00002.warc.gz']);
    expect(locs.map((l) => l.key.slice(-13, -8))).toEqual([
      '00000',
      '00000',
      '00000',
      '00001',
      '00001',
      '00001',
      '00002',
      '00002',
    ]);
    for (const name of files.slice(0, -1)) {
      expect((await readFile(join(dir, 'rot', name))).byteLength).toBeGreaterThanOrEqual(50_000);
    }
    for (const name of files) {
      const records = await collect(join(dir, 'rot', name));
      expect(records[0]?.type).toBe('warcinfo');
      expect(records[0]?.headers['WARC-Filename']).toBe(name);
      expect(records.filter((r) => r.type === 'warcinfo')).toHaveLength(1);
      expect(records.every((r) => r.digestsOk)).toBe(true);
    }
    for (const loc of locs) {
      const r = await readWarcRecordAt(join(dir, loc.key), loc.offset, loc.length);
      expect(r.recordId).toBe(loc.recordId);
    }
  });

  it('continues after the highest existing file when reopened with the same prefix', async () => {
    const first = await WarcWriter.open({ dir, prefix: 'again', software: 'crawler/0.1.0' });
    await first.close();
    const second = await WarcWriter.open({ dir, prefix: 'again', software: 'crawler/0.1.0' });
    expect(second.currentKey()).toBe('again/00001.warc.gz');
    await second.close();
  });
});

describe('WarcWriter revisits', () => {
  it('writes a headers-only revisit pointing at the original capture', async () => {
    const writer = await WarcWriter.open({ dir, prefix: 'rev', software: 'crawler/0.1.0' });
    const body = new TextEncoder().encode('same payload');
    const original = await writer.writeExchange(exchange(1, body));
    const origDate = new Date(Date.UTC(2026, 10, 30, 12, 0, 1, 123));
    const loc = await writer.writeRevisit(
      exchange(2, body, { url: 'https://example.com/page/1?q=1' }),
      {
        profile: 'identical-payload-digest',
        original: {
          recordId: original.recordId,
          url: 'https://example.com/page/1?q=1',
          date: origDate,
          payloadDigest: original.payloadDigest,
        },
      },
    );
    await writer.close();

    expect(loc.payloadDigest).toBe(sha1Base32(body));
    const r = await readWarcRecordAt(join(dir, loc.key), loc.offset, loc.length);
    expect(r.type).toBe('revisit');
    expect(r.headers['WARC-Refers-To']).toBe(original.recordId);
    expect(r.headers['WARC-Refers-To-Target-URI']).toBe('https://example.com/page/1?q=1');
    expect(r.headers['WARC-Refers-To-Date']).toBe(origDate.toISOString());
    expect(r.headers['WARC-Profile']).toBe(
      'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
    );
    expect(r.headers['WARC-Payload-Digest']).toBe(sha1Base32(body));
    expect(r.payload.byteLength).toBe(0);
    expect(r.httpStatus).toBe(200);
    expect(r.digestsOk).toBe(true);
  });
});

describe('WarcWriter errors', () => {
  it('rejects bad options and writes after close with stable codes', async () => {
    await expect(
      WarcWriter.open({ dir, prefix: '../escape', software: 'x' }),
    ).rejects.toMatchObject({
      code: 'WARC_BAD_OPTIONS',
    });
    const writer = await WarcWriter.open({ dir, prefix: 'closed', software: 'x' });
    await writer.close();
    await writer.close();
    await expect(writer.writeExchange(exchange(1, new Uint8Array(1)))).rejects.toMatchObject({
      code: 'WARC_WRITER_CLOSED',
    });
  });
});
