import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { sha256Hex } from '@crawler/domain/dedupe';
import { readWarcRecordAt, WarcWriter } from '@crawler/adapters/warc';
import type { PriorCapture } from '@crawler/frontier';
import { discoverLinks } from './discover-links';
import { pageTask, type PageTaskInput } from './page-task';
import { parsePage, toExtractedPage } from './parse-page';
import { samplePage } from './sample-pages';

const URL_ = 'https://example.com/dir/page.html';
const dir = mkdtempSync(join(tmpdir(), 'page-task-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function input(
  html: string,
  archive: boolean,
  more: { prior?: PriorCapture; parseMaxBytes?: number; status?: number } = {},
): PageTaskInput {
  const body = new TextEncoder().encode(html);
  return {
    page: {
      url: URL_,
      body,
      contentType: 'text/html',
      xRobotsTag: null,
      productToken: 'crawlerbot',
    },
    depth: 2,
    hops: 0,
    limits: DEFAULT_TRAP_LIMITS,
    ...(more.parseMaxBytes ? { parseMaxBytes: more.parseMaxBytes } : {}),
    archive: archive
      ? {
          exchange: {
            url: URL_,
            fetchedAt: new Date('2026-12-01T10:00:00Z'),
            method: 'GET',
            requestHeaders: [['User-Agent', 'crawlerbot/1.0']],
            httpVersion: '1.1',
            status: more.status ?? 200,
            statusText: 'OK',
            responseHeaders: [['Content-Type', 'text/html']],
          },
          gzipLevel: 3,
          ...(more.prior ? { prior: more.prior } : {}),
        }
      : null,
  };
}

async function writeAndRead(records: Parameters<WarcWriter['writeBuiltExchange']>[0]) {
  const writer = await WarcWriter.open({ dir, prefix: `built-${Math.random()}`, software: 't/1' });
  const location = await writer.writeBuiltExchange(records);
  await writer.close();
  return {
    location,
    back: await readWarcRecordAt(join(dir, location.key), location.offset, location.length),
  };
}

describe('pageTask', () => {
  it('gives what parsePage and discoverLinks give, with the text as a JSON literal', async () => {
    const html = samplePage(3);
    const out = await pageTask(input(html, false));
    const page = parsePage(input(html, false).page);
    const { text, links, ...rest } = page;
    expect(out.archive).toBeNull();
    expect(out.parsed!.page).toEqual(rest);
    expect(JSON.parse(Buffer.from(out.parsed!.textJson).toString('utf8'))).toBe(text);
    expect(out.parsed!.textBytes).toBe(Buffer.byteLength(text));
    expect(out.parsed!.found).toEqual(
      discoverLinks(URL_, toExtractedPage({ ...page, links }), 2, DEFAULT_TRAP_LIMITS),
    );
    expect(out.parsed!.found.urls.length).toBeGreaterThan(0);
  });

  it('feeds no text for a noindex page', async () => {
    const out = await pageTask(
      input('<meta name="robots" content="noindex"><p>secret words</p>', false),
    );
    expect(out.parsed!.page.robots.noindex).toBe(true);
    expect(Buffer.from(out.parsed!.textJson).toString('utf8')).toBe('""');
    expect(out.parsed!.textBytes).toBe(0);
  });

  it('hashes the page and builds WARC records that a writer appends and a reader reads back whole', async () => {
    const html = samplePage(5);
    const out = await pageTask(input(html, true));
    const archive = out.archive!;
    expect(archive.contentHash).toBe(sha256Hex(Buffer.from(html)));
    expect(out.parsed!.page.contentSha256).toBe(archive.contentHash);
    expect([archive.change, archive.complete, archive.original]).toEqual(['new', true, null]);
    if (!('exchange' in archive.records)) throw new Error('expected the exchange records');
    const { location, back } = await writeAndRead(archive.records.exchange);
    expect(location.recordId).toBe(archive.records.exchange.response.recordId);
    expect(back.type).toBe('response');
    expect(back.targetUri).toBe(URL_);
    expect(Buffer.from(back.payload).toString('utf8')).toBe(html);
    expect(back.digestsOk).toBe(true);
  });

  it('makes a page identical to its prior capture a revisit of it, and does not parse it again', async () => {
    const html = samplePage(6);
    const prior = {
      sha256: sha256Hex(Buffer.from(html)),
      recordId: '<urn:uuid:00000000-0000-4000-8000-000000000001>',
      payloadDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      capturedAt: Date.parse('2026-11-01T00:00:00Z'),
    };
    const out = await pageTask(input(html, true, { prior }));
    expect(out.parsed).toBeNull();
    expect(out.archive).toMatchObject({ change: 'unchanged', ofPrior: true });
    expect(out.archive!.original?.recordId).toBe(prior.recordId);
    expect('revisit' in out.archive!.records).toBe(true);
    // A changed page against the same prior is stored and parsed.
    const changed = await pageTask(input(samplePage(7), true, { prior }));
    expect(changed.archive).toMatchObject({ change: 'changed', ofPrior: false, original: null });
    expect(changed.parsed).not.toBeNull();
  });

  it('parses at most parseMaxBytes of the body, and archives all of it', async () => {
    const head = '<html><body><a href="/early">early</a>';
    const html = `${head}${' '.repeat(100_000)}<a href="/late">late</a></body></html>`;
    const out = await pageTask(input(html, true, { parseMaxBytes: 64 * 1024 }));
    const found = out.parsed!.found.urls.map((u) => new URL(u.url).pathname);
    expect(found).toContain('/early');
    expect(found).not.toContain('/late');
    if (!('exchange' in out.archive!.records)) throw new Error('expected the exchange records');
    const { back } = await writeAndRead(out.archive!.records.exchange);
    expect(back.payload.byteLength).toBe(Buffer.byteLength(html));
    // Without the limit, the late link is found.
    const whole = await pageTask(input(html, false));
    expect(whole.parsed!.found.urls.map((u) => new URL(u.url).pathname)).toContain('/late');
  });
});
