/**
 * A thin wrapper over ServerResponse that records status and body bytes in the request's log
 * entry, streams with back-pressure and stops when the client goes away.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { HostRealism } from '../model/realistic.js';
import type { RequestLogEntry } from '../types.js';
import { pageLinks } from './page-links.js';

/** Writes one response and accounts for it in its log entry. */
export class Reply {
  /** True once the response closed (finished or aborted). */
  closed = false;
  private readonly onClose: Array<() => void> = [];

  /**
   * @param logLinks record the links of HTML pages answered 200 in the entry (`links`).
   */
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly entry: RequestLogEntry,
    private readonly logLinks = false,
    /** The host's behaviour on the realistic web (encoding, latency); absent on the simple one. */
    private readonly realism?: HostRealism,
  ) {
    res.on('close', () => {
      this.closed = true;
      for (const f of this.onClose.splice(0)) f();
    });
  }

  /** True for HEAD requests (head only, no body). */
  get isHead(): boolean {
    return this.req.method === 'HEAD';
  }

  /** Runs `f` when the response closes (immediately if it already has). */
  whenClosed(f: () => void): void {
    if (this.closed) f();
    else this.onClose.push(f);
  }

  /** Sends the status line and headers. */
  head(status: number, headers: OutgoingHttpHeaders): void {
    if (this.closed || this.res.headersSent) return;
    this.entry.status = status;
    this.res.writeHead(status, headers);
  }

  /**
   * Sends a complete response with Content-Length (body omitted for HEAD and 304); `gzipped`, the
   * body's gzip encoding made beforehand, is sent when the host gzips.
   */
  send(
    status: number,
    headers: OutgoingHttpHeaders,
    body: Buffer | string,
    gzipped: Buffer | null = null,
  ): void {
    let buf = typeof body === 'string' ? Buffer.from(body) : body;
    if (this.logLinks && status === 200 && isHtml(headers) && !this.isHead)
      this.entry.links = pageLinks(buf.toString('utf8'), this.entry.url);
    const r = this.realism;
    if (r !== undefined) {
      if (r.encoding !== 'identity' && status !== 304 && isCompressible(headers)) {
        const encoding = chooseEncoding(r.encoding, this.req.headers['accept-encoding']);
        headers = { ...headers, Vary: 'Accept-Encoding' };
        if (encoding !== null && buf.length >= 256) {
          buf = encoding === 'gzip' ? (gzipped ?? gzipSync(buf, { level: 1 })) : brotli(buf);
          headers['Content-Encoding'] = encoding;
        }
      }
      if (r.firstByteMs > 0 || (r.trickle !== null && buf.length > r.trickle.chunkBytes)) {
        void this.sendPaced(status, headers, buf, r);
        return;
      }
    }
    this.head(
      status,
      status === 304 ? headers : { ...headers, 'Content-Length': String(buf.length) },
    );
    if (this.closed) return;
    if (this.isHead || status === 304 || buf.length === 0) {
      this.res.end();
      return;
    }
    this.entry.bytes += buf.length;
    this.res.end(buf);
  }

  /** `send` on a slow or trickling host: waits for the first byte, then writes in chunks. */
  private async sendPaced(
    status: number,
    headers: OutgoingHttpHeaders,
    buf: Buffer,
    r: HostRealism,
  ): Promise<void> {
    if (r.firstByteMs > 0 && !(await this.sleep(r.firstByteMs))) return;
    this.head(
      status,
      status === 304 ? headers : { ...headers, 'Content-Length': String(buf.length) },
    );
    if (this.closed) return;
    if (this.isHead || status === 304 || buf.length === 0 || r.trickle === null) {
      if (!this.isHead && status !== 304) this.entry.bytes += buf.length;
      this.res.end(this.isHead || status === 304 ? undefined : buf);
      return;
    }
    const { chunkBytes, chunkGapMs } = r.trickle;
    for (let off = 0; off < buf.length; off += chunkBytes) {
      if (off > 0 && !(await this.sleep(chunkGapMs))) return;
      await this.write(buf.subarray(off, off + chunkBytes));
    }
    this.end();
  }

  /** Writes a body chunk; resolves when it may write more (drain), or at once. */
  write(chunk: Buffer): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.entry.bytes += chunk.length;
    if (this.res.write(chunk)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        resolve();
      };
      this.res.on('drain', done);
      this.whenClosed(done);
    });
  }

  /** Ends the response. */
  end(): void {
    if (!this.closed) this.res.end();
  }

  /** Resolves after `ms` milliseconds, or early (with false) if the response closes. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.closed) {
        resolve(false);
        return;
      }
      const timer = setTimeout(() => resolve(!this.closed), ms);
      this.whenClosed(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
  }
}

/**
 * br at quality 1: a server compressing on the fly picks a low quality (11, the default, is for
 * static files); 1 costs the web a third of 4 (0.34 against 1.2 ms for 80 KB here) for a body
 * ~1% larger, and the web shares the machine with the crawler it measures.
 */
function brotli(buf: Buffer): Buffer {
  return brotliCompressSync(buf, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 1,
      [zlib.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  });
}

/** The host's preferred encoding if the client accepts it, else the other one, else none. */
function chooseEncoding(
  preferred: 'gzip' | 'br',
  accept: string | undefined,
): 'gzip' | 'br' | null {
  if (accept === undefined) return null;
  const accepted = new Set<string>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((x) => x !== undefined);
    if (name !== undefined && (q === undefined || Number(q) > 0)) accepted.add(name.trim());
  }
  const ok = (e: string): boolean => accepted.has(e) || accepted.has('*');
  if (ok(preferred)) return preferred;
  const other = preferred === 'gzip' ? 'br' : 'gzip';
  return ok(other) ? other : null;
}

/** Text bodies (HTML, XML, JSON, plain text) not already encoded. */
function isCompressible(headers: OutgoingHttpHeaders): boolean {
  if (headers['Content-Encoding'] !== undefined) return false;
  const type = headers['Content-Type'] ?? headers['content-type'];
  return typeof type === 'string' && /^(text\/|application\/(xml|json|xhtml\+xml))/i.test(type);
}

function isHtml(headers: OutgoingHttpHeaders): boolean {
  const type = headers['Content-Type'] ?? headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('text/html');
}
