/**
 * A worker of the `work` ceiling (`agent-ceiling.ts`): for every response, exactly the per-byte
 * work an archiving crawler cannot avoid, and nothing else — decode the Content-Encoding,
 * SHA-256 of the body, gzip level 1 of headers + body (a WARC record), one htmlparser2
 * Tokenizer pass collecting hrefs (HTML only). The body arrives transferred, not copied.
 * Plain JavaScript so that it needs no loader in the worker.
 */
import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { Tokenizer } from 'htmlparser2';

/** This thread's id (for the parent's per-thread CPU from /proc): `/proc/thread-self` → `PID/task/TID`. */
function threadId() {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 0;
  }
}

/** The hrefs of `<a>` (and `<area>`, `<link>`) tags, by one Tokenizer pass. */
function hrefsOf(html) {
  const hrefs = [];
  let tag = '';
  let attr = '';
  let value = '';
  const tokenizer = new Tokenizer(
    { decodeEntities: true, xmlMode: false },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
      },
      onattribname(start, end) {
        attr = html.slice(start, end).toLowerCase();
        value = '';
      },
      onattribdata(start, end) {
        if (attr === 'href') value += html.slice(start, end);
      },
      onattribentity(codepoint) {
        if (attr === 'href') value += String.fromCodePoint(codepoint);
      },
      onattribend() {
        if (attr === 'href' && (tag === 'a' || tag === 'area' || tag === 'link')) hrefs.push(value);
        attr = '';
      },
      onopentagend() {},
      onselfclosingtag() {},
      onclosetag() {},
      ontext() {},
      ontextentity() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return hrefs;
}

/** Decoded bodies stop at the crawler's cap, as the crawler's do (the gzip bomb). */
const MAX_DECODED = 10 * 1024 * 1024;

function decode(body, encoding) {
  const opts = { maxOutputLength: MAX_DECODED };
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, opts);
    case 'br':
      return brotliDecompressSync(body, opts);
    case 'deflate':
      return inflateSync(body, opts);
    default:
      return body;
  }
}

parentPort.postMessage({ tid: threadId() });
parentPort.on('message', (m) => {
  let hrefs = 0;
  let decodedBytes = 0;
  let error = false;
  try {
    const raw = Buffer.from(m.body, 0, m.length);
    const body = decode(raw, m.encoding);
    decodedBytes = body.length;
    createHash('sha256').update(body).digest();
    gzipSync(Buffer.concat([Buffer.from(m.head), body]), { level: 1 });
    if (m.html) hrefs = hrefsOf(body.toString('utf8')).length;
  } catch {
    error = true;
  }
  parentPort.postMessage({ id: m.id, hrefs, decodedBytes, error });
});
