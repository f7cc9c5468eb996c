/**
 * A tiny HTTP client for the package's tests: sends a request to a synthetic host's address with
 * the right Host header and collects the raw (undecoded) response.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

/** A collected response. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** ms from sending to the response head. */
  firstByteMs: number;
}

/** Options of {@link httpGet}. */
export interface GetOptions {
  headers?: Record<string, string>;
  method?: string;
  /** Stop reading after this many body bytes (the socket is destroyed). */
  maxBytes?: number;
  /** Destroy the request after this many ms (resolves with what arrived). */
  abortAfterMs?: number;
  /** Client limit on response header bytes (Node's default is 16 KiB). */
  maxHeaderSize?: number;
}

/**
 * GET `path` from `host` (name) at `ip:port`; the Host header is `host:port`.
 */
export function httpGet(
  ip: string,
  port: number,
  host: string,
  path: string,
  opts: GetOptions = {},
): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let firstByteMs = -1;
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const finish = (): void =>
      resolve({ status, headers, body: Buffer.concat(chunks), firstByteMs });
    const req = request(
      {
        host: ip,
        port,
        path,
        method: opts.method ?? 'GET',
        agent: false,
        maxHeaderSize: opts.maxHeaderSize,
        headers: { Host: `${host}:${port}`, ...opts.headers },
      },
      (res) => {
        firstByteMs = performance.now() - started;
        status = res.statusCode ?? 0;
        headers = res.headers;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (opts.maxBytes !== undefined && size >= opts.maxBytes) req.destroy();
        });
        res.on('close', finish);
        res.on('error', () => undefined);
      },
    );
    if (opts.abortAfterMs !== undefined) {
      setTimeout(() => {
        req.destroy();
        if (status === 0) finish();
      }, opts.abortAfterMs);
    }
    req.on('error', (err) => {
      if (status === 0 && opts.abortAfterMs === undefined) reject(err);
    });
    req.end();
  });
}
