/**
 * Responses of the hostile resources: a 20 MiB page (with and without Content-Length), a gzip
 * bomb, a trickle (1 byte every 500 ms), huge response headers and malformed HTML.
 */
import type { HostileMode } from '../model/resources.js';
import { standardBomb } from './gzip-bomb.js';
import type { Reply } from './reply.js';

/** Size of the huge page, bytes (20 MiB). */
export const HUGE_PAGE_BYTES = 20 * 1024 * 1024;
/** Interval between trickled bytes, ms. */
export const TRICKLE_INTERVAL_MS = 500;
/** Bytes the trickle sends in total (10 minutes at one byte per 500 ms). */
export const TRICKLE_BYTES = 1200;
/** Delay before the first byte on the `slow` host, ms. */
export const SLOW_FIRST_BYTE_MS = 2000;

const HTML = 'text/html; charset=utf-8';
const STREAM_CHUNK = 64 * 1024;

function hugeChunks(): { head: Buffer; filler: Buffer; foot: Buffer } {
  const head = Buffer.from('<!DOCTYPE html>\n<html><head><title>Huge</title></head><body>\n');
  const foot = Buffer.from('</body></html>\n');
  const line =
    '<p>This page is very large. It repeats the same paragraph until it reaches twenty megabytes.</p>\n';
  const filler = Buffer.from(line.repeat(Math.ceil(STREAM_CHUNK / line.length))).subarray(
    0,
    STREAM_CHUNK,
  );
  return { head, filler, foot };
}

async function streamHuge(reply: Reply, withLength: boolean): Promise<void> {
  const { head, filler, foot } = hugeChunks();
  const headers: Record<string, string> = { 'Content-Type': HTML };
  if (withLength) headers['Content-Length'] = String(HUGE_PAGE_BYTES);
  reply.head(200, headers);
  if (reply.isHead) {
    reply.end();
    return;
  }
  await reply.write(head);
  let left = HUGE_PAGE_BYTES - head.length - foot.length;
  while (left > 0 && !reply.closed) {
    const n = Math.min(left, filler.length);
    await reply.write(n === filler.length ? filler : filler.subarray(0, n));
    left -= n;
  }
  await reply.write(foot);
  reply.end();
}

async function streamBomb(reply: Reply): Promise<void> {
  const bomb = standardBomb();
  reply.head(200, {
    'Content-Type': HTML,
    'Content-Encoding': 'gzip',
    'Content-Length': String(bomb.gz.length),
  });
  if (reply.isHead) {
    reply.end();
    return;
  }
  for (let off = 0; off < bomb.gz.length && !reply.closed; off += STREAM_CHUNK) {
    await reply.write(bomb.gz.subarray(off, off + STREAM_CHUNK));
  }
  reply.end();
}

async function trickle(reply: Reply): Promise<void> {
  reply.head(200, { 'Content-Type': HTML });
  if (reply.isHead) {
    reply.end();
    return;
  }
  const text = Buffer.from(
    `<!DOCTYPE html><html><body><p>${'slow '.repeat(TRICKLE_BYTES)}`,
  ).subarray(0, TRICKLE_BYTES);
  for (let i = 0; i < text.length; i++) {
    await reply.write(text.subarray(i, i + 1));
    if (!(await reply.sleep(TRICKLE_INTERVAL_MS))) return;
  }
  reply.end();
}

function hugeHeaders(reply: Reply): void {
  const headers: Record<string, string> = { 'Content-Type': HTML };
  for (let i = 0; i < 64; i++) headers[`X-Filler-${String(i).padStart(2, '0')}`] = 'x'.repeat(1000);
  headers['X-Huge'] = 'y'.repeat(32 * 1024);
  reply.send(
    200,
    headers,
    '<!DOCTYPE html><html><body><p>Look at my headers.</p><a href="/">home</a></body></html>\n',
  );
}

function malformed(reply: Reply): void {
  const body = Buffer.concat([
    Buffer.from(
      '<html><head><title>Broken<body><p>unclosed <div><a href="/">home</a><table><tr><td>cell<p><b><i>nested</b></i>\n' +
        '<a href=/broken.html?page=2>unquoted</a> <a href="/broken.html?x=1\n<script>document.write("<a href=',
    ),
    Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0x00, 0x00]),
    Buffer.from(
      '\n<!-- unterminated comment <a href="/never">x</a>\n<p>\u00e9\u00e8 <![CDATA[ </table></div',
    ),
  ]);
  reply.send(200, { 'Content-Type': HTML }, body);
}

/** Answers a hostile resource (async modes end by themselves or when the client leaves). */
export async function serveHostile(reply: Reply, mode: HostileMode): Promise<void> {
  switch (mode) {
    case 'huge':
      return streamHuge(reply, true);
    case 'huge-chunked':
      return streamHuge(reply, false);
    case 'bomb':
      return streamBomb(reply);
    case 'trickle':
      return trickle(reply);
    case 'headers':
      hugeHeaders(reply);
      return;
    case 'malformed':
      malformed(reply);
      return;
  }
}
