/**
 * The request log: one entry per request, completed at the response's 'close' event, kept in
 * memory and appended to an optional JSON-lines file.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { RequestLogEntry } from '../types.js';

/** Float ms on the log clock (performance.timeOrigin + performance.now()). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Host header lowercased, port and trailing dot stripped. */
export function normalizeHostHeader(value: string | undefined): string {
  if (value === undefined) return '';
  let h = value.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.lastIndexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Collects request log entries. */
export class RequestLog {
  private readonly done: RequestLogEntry[] = [];
  private readonly inflight = new Map<string, number>();
  private seq = 0;
  private open = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly file: WriteStream | null;

  /** @param path JSON-lines file to write (truncated), or undefined for memory only. */
  constructor(path: string | undefined) {
    if (path === undefined) {
      this.file = null;
    } else {
      mkdirSync(dirname(path), { recursive: true });
      this.file = createWriteStream(path, { flags: 'w' });
    }
  }

  /**
   * Opens the entry of a request; it completes (endMs, aborted) at the response's 'close' event,
   * with endMs the time the answer's last byte was handed to the kernel where that is known.
   * @param host normalized Host header.
   * @param port the web's port (for the absolute url).
   */
  begin(req: IncomingMessage, res: ServerResponse, host: string, port: number): RequestLogEntry {
    const target = req.url ?? '/';
    const url = /^https?:\/\//i.test(target)
      ? target
      : `${(req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http'}://${host}:${port}${target.startsWith('/') ? '' : '/'}${target}`;
    const inflight = (this.inflight.get(host) ?? 0) + 1;
    this.inflight.set(host, inflight);
    this.open++;
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const entry: RequestLogEntry = {
      seq: ++this.seq,
      host,
      ip: req.socket.localAddress ?? '',
      method: req.method ?? 'GET',
      target,
      url,
      status: 0,
      bytes: 0,
      ua: req.headers['user-agent'] ?? '',
      conditional: inm !== undefined || ims !== undefined,
      startMs: nowMs(),
      endMs: 0,
      inflightAtStart: inflight,
      aborted: false,
    };
    // The end is when the last byte went to the kernel: right after res.end() when the socket
    // took it all at once (small answers), else at 'close'. 'close' alone runs behind by as long
    // as this server's event loop is busy after the write (tens of ms on a loaded machine),
    // which would make a gap the crawler kept look shorter than it was.
    let sentMs: number | undefined;
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<ServerResponse['end']>) => {
      const returned = end(...args);
      if (res.writableFinished) sentMs ??= nowMs();
      return returned;
    }) as ServerResponse['end'];
    res.on('close', () => {
      entry.endMs = sentMs ?? nowMs();
      entry.aborted = !res.writableFinished;
      const left = (this.inflight.get(host) ?? 1) - 1;
      if (left <= 0) this.inflight.delete(host);
      else this.inflight.set(host, left);
      this.done.push(entry);
      this.file?.write(`${JSON.stringify(entry)}\n`);
      this.open--;
      if (this.open === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
    return entry;
  }

  /** Completed entries, in start (seq) order. */
  entries(): RequestLogEntry[] {
    return this.done.slice().sort((a, b) => a.seq - b.seq);
  }

  /** Resolves when no request is open (or after `timeoutMs`). */
  idle(timeoutMs: number): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    const file = this.file;
    if (file === null || file.closed) return;
    await new Promise<void>((resolve, reject) => {
      file.end((err?: Error | null) => (err ? reject(err) : resolve()));
    });
  }
}
