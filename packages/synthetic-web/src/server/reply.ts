/**
 * A thin wrapper over ServerResponse that records status and body bytes in the request's log
 * entry, streams with back-pressure and stops when the client goes away.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
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

  /** Sends a complete response with Content-Length (body omitted for HEAD and 304). */
  send(status: number, headers: OutgoingHttpHeaders, body: Buffer | string): void {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    if (this.logLinks && status === 200 && isHtml(headers) && !this.isHead)
      this.entry.links = pageLinks(buf.toString('utf8'), this.entry.url);
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

function isHtml(headers: OutgoingHttpHeaders): boolean {
  const type = headers['Content-Type'] ?? headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('text/html');
}
