import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { readWarcRecordAt, WarcWriter } from '@crawler/adapters/warc';
import { discoverLinks } from './discover-links';
import { pageTask, type PageTaskInput } from './page-task';
import { parsePage, toExtractedPage } from './parse-page';
import { samplePage } from './sample-pages';

const URL_ = 'https://example.com/dir/page.html';
const dir = mkdtempSync(join(tmpdir(), 'page-task-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function input(html: string, record: boolean): PageTaskInput {
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
    record: record
      ? {
          exchange: {
            url: URL_,
            fetchedAt: new Date('2026-12-01T10:00:00Z'),
            method: 'GET',
            requestHeaders: [['User-Agent', 'crawlerbot/1.0']],
            httpVersion: '1.1',
            status: 200,
            statusText: 'OK',
            responseHeaders: [['Content-Type', 'text/html']],
          },
          gzipLevel: 3,
        }
      : null,
  };
}

describe('pageTask', () => {
  it('gives what parsePage and discoverLinks give, with the text as a JSON literal', async () => {
    const html = samplePage(3);
    const out = await pageTask(input(html, false));
    const page = parsePage(input(html, false).page);
    const { text, links, ...rest } = page;
    expect(out.page).toEqual(rest);
    expect(JSON.parse(Buffer.from(out.textJson).toString('utf8'))).toBe(text);
    expect(out.textBytes).toBe(Buffer.byteLength(text));
    expect(out.found).toEqual(
      discoverLinks(URL_, toExtractedPage({ ...page, links }), 2, DEFAULT_TRAP_LIMITS),
    );
    expect(out.found.urls.length).toBeGreaterThan(0);
    expect(out.record).toBeNull();
  });

  it('feeds no text for a noindex page', async () => {
    const out = await pageTask(
      input('<meta name="robots" content="noindex"><p>secret words</p>', false),
    );
    expect(out.page.robots.noindex).toBe(true);
    expect(Buffer.from(out.textJson).toString('utf8')).toBe('""');
    expect(out.textBytes).toBe(0);
  });

  it('builds WARC records that a writer appends and a reader reads back whole', async () => {
    const html = samplePage(5);
    const out = await pageTask(input(html, true));
    expect(out.record).not.toBeNull();
    const writer = await WarcWriter.open({ dir, prefix: 'built', software: 'test/1' });
    const location = await writer.writeBuiltExchange(out.record!);
    await writer.close();
    expect(location.recordId).toBe(out.record!.response.recordId);
    const back = await readWarcRecordAt(join(dir, location.key), location.offset, location.length);
    expect(back.type).toBe('response');
    expect(back.targetUri).toBe(URL_);
    expect(Buffer.from(back.payload).toString('utf8')).toBe(html);
    expect(back.digestsOk).toBe(true);
  });
});
