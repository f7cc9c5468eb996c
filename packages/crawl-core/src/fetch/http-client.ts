import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { createSecureContext, rootCertificates, type TLSSocket } from 'node:tls';
import { Agent, buildConnector, request, errors as undiciErrors } from 'undici';
import type { LookupFunction } from 'node:net';
import { BodyBudget, type BodyReservation } from './body-budget';
import { BodySink, Deadline, makeDecoder, SpeedFloor } from './http-client-body';
import { FetchError } from './fetch-error';
import type { NetworkGuard } from './network-guard';
import { DnsError, type HostResolver } from './resolve-host';

export interface HttpClientOptions {
  userAgent: string;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  totalTimeoutMs: number;
  /** Body cap counted after decompression (bytes). */
  maxBodyBytes: number;
  /**
   * Minimum transfer speed (bytes/s, wire or decoded, whichever is faster) over each window of
   * `minSpeedWindowMs` once headers have arrived; a slower body is cut off with
   * `truncated: 'slow'`. 0 turns the check off.
   */
  minSpeedBytesPerS?: number;
  minSpeedWindowMs?: number;
  /**
   * Decoded body bytes this client holds at once across its requests (AGENT_BODY_BUDGET_BYTES;
   * see {@link BodyBudget}); 0 or absent: no budget.
   */
  bodyBudgetBytes?: number;
  /**
   * PEM certificates trusted as roots besides Node's own (FETCH_CA_FILE): a private CA, or the
   * test CA of the benches and tests. Certificates are always verified.
   */
  trustedCa?: string[];
  resolver: HostResolver;
  guard: NetworkGuard;
}

export interface HttpResponse {
  url: string;
  status: number;
  statusText: string;
  httpVersion: string;
  headers: Array<[string, string]>;
  requestHeaders: Array<[string, string]>;
  /** Decoded body (Content-Encoding removed), at most maxBodyBytes. */
  body: Buffer;
  /** Original Content-Encoding, when the body was decoded. */
  contentEncoding: string | null;
  /** Why the body is incomplete: the cap, the overall deadline, the minimum speed, a hang-up. */
  truncated: 'length' | 'time' | 'slow' | 'disconnect' | null;
  contentType: string;
  /** Request start to last body byte (ms). */
  fetchMs: number;
  ip: string | null;
  /** The TLS session the response came over (https), else null. */
  tls: TlsFacts | null;
}

/** What a TLS connection negotiated, as WARC-Protocol and WARC-Cipher-Suite record it. */
export interface TlsFacts {
  /** `TLSv1.3`, `TLSv1.2`, … (Node's names). */
  protocol: string;
  /** IANA name of the cipher suite, e.g. `TLS_AES_256_GCM_SHA384`. */
  cipherSuite: string;
}

/** The most connections a host's policy may allow (host_policies.max_connections). */
export const MAX_CONNECTIONS_PER_HOST = 16;

/** TLS sessions kept for resumption, one per server name (undici's cache, LRU). */
const TLS_SESSION_CACHE = 4096;

/** First slab of a body of unknown decoded size (compressed, or no Content-Length). */
const FIRST_SLAB_BYTES = 64 * 1024;
/** A growing reservation doubles, by at most this much a step. */
const MAX_GROW_STEP_BYTES = 1024 * 1024;

/**
 * The agent's HTTP client: undici with one keep-alive connection per origin, per-phase timeouts,
 * an overall deadline (undici's bodyTimeout resets on every chunk, so a trickling server needs
 * one), decompression with the cap counted on decoded bytes (a gzip bomb stops at the cap), and
 * the SSRF guard applied to the address actually connected.
 */
export class HttpClient {
  /** One connection per origin: politeness's default, enforced by the pool itself. */
  private readonly dispatcher: Agent;
  /**
   * Up to MAX_CONNECTIONS_PER_HOST per origin, for hosts an operator allowed more connections;
   * the lease worker keeps no more requests in flight than the host's own limit.
   */
  private readonly multiDispatcher: Agent;
  /** host name → last IP connected, for telemetry and per-IP politeness. */
  private readonly lastIp = new Map<string, string>();
  /**
   * `host:port` → what its last TLS handshake negotiated (per origin, not per connection: an
   * origin's connections from one client negotiate alike unless the server varies them).
   */
  private readonly lastTls = new Map<string, TlsFacts>();
  /**
   * The latest TLS session of each server name, held strongly (most recent last): undici's own
   * cache holds sessions by WeakRef only, so a busy agent's garbage collections dropped them
   * within seconds and every reconnection was a full handshake (~2.5 ms of CPU here).
   */
  private readonly tlsSessions = new Map<string, Buffer>();
  /** Decoded bodies held at once (null: unbounded). */
  readonly bodyBudget: BodyBudget | null;
  /** Reservations of responses returned with `holdBody`, until {@link releaseBody}. */
  private readonly held = new WeakMap<HttpResponse, BodyReservation>();

  /** The User-Agent of requests from now on (operators may change the contact URL live). */
  setUserAgent(userAgent: string): void {
    this.opts.userAgent = userAgent;
  }

  constructor(private readonly opts: HttpClientOptions) {
    this.bodyBudget = opts.bodyBudgetBytes ? new BodyBudget(opts.bodyBudgetBytes) : null;
    const lookup: LookupFunction = (hostname, options, callback) => {
      opts.resolver.resolve(hostname).then(
        (ips) => {
          const ip = ips[0];
          if (!ip) return callback(new FetchError('dns_not_found', hostname), '', 4);
          const verdict = opts.guard.check(ip);
          if (!verdict.ok)
            return callback(new FetchError(verdict.reason, `${hostname} → ${ip}`), '', 4);
          this.rememberIp(hostname, ip);
          const family = isIP(ip);
          if ((options as { all?: boolean }).all) {
            (
              callback as unknown as (
                e: null,
                a: Array<{ address: string; family: number }>,
              ) => void
            )(null, [{ address: ip, family }]);
          } else callback(null, ip, family);
        },
        (err: unknown) =>
          callback(
            err instanceof DnsError ? new FetchError(err.reason, hostname) : (err as Error),
            '',
            4,
          ),
      );
    };
    // Keep-alive per origin, TLS sessions resumed (undici caches one per server name), the
    // chain verified against Node's roots plus the configured ones; each TLS connection's
    // protocol and cipher are remembered for the WARC records of its responses. The trusted
    // CAs are one secure context made here: given as `ca`, every connection would parse Node's
    // ~140 roots again (~20 ms of the event loop and megabytes each).
    const connector = buildConnector({
      lookup,
      timeout: opts.connectTimeoutMs,
      maxCachedSessions: TLS_SESSION_CACHE,
      rejectUnauthorized: true,
      ...(opts.trustedCa?.length
        ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...opts.trustedCa] }) }
        : {}),
    });
    const connect: buildConnector.connector = (options, callback) =>
      connector(options, (...args) => {
        const socket = args[1];
        if (socket && 'getCipher' in socket) {
          this.rememberTls(tlsKey(options.hostname, options.port), socket);
          const name = options.servername || options.hostname;
          socket.on('session', (session: Buffer) => this.keepTlsSession(name, session));
        }
        callback(...args);
      });
    const pool = (connections: number) =>
      new Agent({
        connections,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connectTimeout: opts.connectTimeoutMs,
        headersTimeout: opts.firstByteTimeoutMs,
        bodyTimeout: opts.firstByteTimeoutMs,
        maxHeaderSize: 64 * 1024,
        connect,
      });
    this.dispatcher = pool(1);
    this.multiDispatcher = pool(MAX_CONNECTIONS_PER_HOST);
  }

  /** Starts DNS lookups for hosts about to be crawled (see HostResolver.prefetch). */
  prefetchDns(hosts: Iterable<string>): void {
    this.opts.resolver.prefetch(hosts);
  }

  /** The IP last connected for a host name, if any. */
  ipOf(hostname: string): string | null {
    return this.lastIp.get(hostname) ?? null;
  }

  /**
   * Gives back the body budget a response fetched with `holdBody` holds (idempotent; a no-op
   * for other responses).
   */
  releaseBody(res: HttpResponse): void {
    this.held.get(res)?.release();
    this.held.delete(res);
  }

  /**
   * GETs a URL once (no redirects followed: the caller decides). `multiConnection` uses the pool
   * that may open several connections to the origin (hosts allowed more than one). The body
   * counts against the body budget while it is read; with `holdBody` until the caller passes
   * the response to {@link releaseBody} (after archiving and parsing it), else until this
   * returns. `heldCopies`: copies of the body the holder will make (decoded text, JSON…), also
   * reserved — waited for, if need be, before this returns. `cut`: when it aborts, the request
   * is abandoned at once, in any phase, with `drain_cut` (nothing of it is returned).
   * A response whose `Content-Length` is over the cap is cut at its headers (`truncated:
   * 'length'`, empty body: nothing of it is downloaded) unless `readOversize` asks for its first
   * `maxBodyBytes` (robots.txt: RFC 9309 has a crawler read at least 500 KiB of any file).
   */
  async get(
    url: string,
    extraHeaders: Record<string, string> = {},
    opts: {
      multiConnection?: boolean;
      holdBody?: boolean;
      heldCopies?: number;
      cut?: AbortSignal;
      readOversize?: boolean;
    } = {},
  ): Promise<HttpResponse> {
    const u = new URL(url);
    const literal = u.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal)) {
      // A lookup hook never runs for IP-literal hosts: check them here.
      const verdict = this.opts.guard.check(literal);
      if (!verdict.ok) throw new FetchError(verdict.reason, literal);
      this.rememberIp(u.hostname, literal);
    }
    const requestHeaders: Array<[string, string]> = [
      ['User-Agent', this.opts.userAgent],
      ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
      ['Accept-Encoding', 'gzip, deflate, br'],
      ...Object.entries(extraHeaders),
    ];
    const started = performance.now();
    const timer = new Deadline(this.opts.totalTimeoutMs);
    const deadline = timer.signal;
    const cut = () => timer.cut();
    if (opts.cut?.aborted) throw new FetchError('drain_cut', 'the agent is draining');
    opts.cut?.addEventListener('abort', cut, { once: true });
    let res: Awaited<ReturnType<typeof request>>;
    let headers: Array<[string, string]>;
    let encoding: string;
    let body: Buffer;
    let truncated: HttpResponse['truncated'];
    let reservation: BodyReservation | null = null;
    let waitedMs = 0;
    try {
      try {
        res = await request(u, {
          method: 'GET',
          headers: Object.fromEntries(requestHeaders),
          dispatcher: opts.multiConnection ? this.multiDispatcher : this.dispatcher,
          signal: deadline,
        });
      } catch (err) {
        if (timer.wasCut) throw new FetchError('drain_cut', 'abandoned by the drain');
        throw toFetchError(err, deadline.aborted);
      }
      headers = flattenHeaders(res.headers);
      encoding = (headerValue(headers, 'content-encoding') ?? '').trim().toLowerCase();
      const length = Number(headerValue(headers, 'content-length') ?? NaN);
      const contentLength = Number.isSafeInteger(length) && length >= 0 ? length : null;
      const mayHaveBody = res.statusCode >= 200 && res.statusCode !== 204 && res.statusCode !== 304;
      if (!mayHaveBody) {
        // A 304 or 204 has no body whatever its Content-Length says (RFC 9110 lets a 304 carry
        // the representation's); reading one would fail as a hang-up. Its empty body is
        // consumed, which keeps the connection alive.
        await res.body.dump();
        ({ body, truncated } = { body: Buffer.alloc(0), truncated: null });
      } else if (
        contentLength !== null &&
        contentLength > this.opts.maxBodyBytes &&
        !opts.readOversize
      ) {
        // Over the cap decoded too (decoding never shrinks a body below its wire size in
        // practice): not a byte of it is read; the connection is closed (the abort this raises
        // on the body is ours, not an error to report).
        res.body.on('error', () => undefined).destroy();
        ({ body, truncated } = { body: Buffer.alloc(0), truncated: 'length' });
      } else
        ({ body, truncated, reservation, waitedMs } = await this.readBody(
          res.body,
          encoding,
          timer,
          contentLength,
        ));
    } finally {
      timer.clear();
      opts.cut?.removeEventListener('abort', cut);
    }
    if (timer.wasCut) {
      reservation?.release();
      throw new FetchError('drain_cut', 'abandoned by the drain');
    }
    const response: HttpResponse = {
      url,
      status: res.statusCode,
      statusText: STATUS_CODES[res.statusCode] ?? '',
      httpVersion: '1.1',
      headers,
      requestHeaders,
      body,
      contentEncoding: encoding && encoding !== 'identity' ? encoding : null,
      truncated,
      contentType: (headerValue(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase(),
      // Time spent waiting for body budget is the agent's, not the server's (the pacer's 10×).
      fetchMs: performance.now() - started - waitedMs,
      ip: this.ipOf(u.hostname),
      tls: u.protocol === 'https:' ? (this.lastTls.get(tlsKey(u.hostname, u.port)) ?? null) : null,
    };
    if (reservation) {
      if (!opts.holdBody) reservation.release();
      else {
        this.held.set(response, reservation);
        const copies = (opts.heldCopies ?? 0) * body.length;
        if (copies > 0) await reservation.grow(copies);
      }
    }
    return response;
  }

  async close(): Promise<void> {
    await Promise.all([this.dispatcher.close(), this.multiDispatcher.close()]);
  }

  /**
   * Reads and decodes a body up to the cap. Under a body budget it first reserves the body's
   * size when known (identity encoding with Content-Length, at most the cap) or a first slab,
   * and grows the reservation before keeping bytes beyond it. A wait for budget is the agent's
   * doing, not the server's: the socket stays paused (TCP holds the server back), the overall
   * deadline and the speed window stop meanwhile, and the time is not the server's fetch time.
   */
  private async readBody(
    raw: Readable,
    encoding: string,
    timer: Deadline,
    contentLength: number | null,
  ): Promise<{
    body: Buffer;
    truncated: HttpResponse['truncated'];
    reservation: BodyReservation | null;
    waitedMs: number;
  }> {
    const deadline = timer.signal;
    const decoder = makeDecoder(encoding);
    const cap = this.opts.maxBodyBytes;
    const exact = decoder === null && contentLength !== null ? Math.min(contentLength, cap) : null;
    let reservation: BodyReservation | null = null;
    let waitedMs = 0;
    const waitFor = async <T>(wait: Promise<T>): Promise<T> => {
      const since = performance.now();
      timer.pause();
      try {
        return await wait;
      } finally {
        timer.resume();
        waitedMs += performance.now() - since;
      }
    };
    if (this.bodyBudget) {
      const first = exact ?? Math.min(FIRST_SLAB_BYTES, cap);
      reservation = await waitFor(this.bodyBudget.reserve(first));
    }
    const source: Readable = decoder ? pipeline(raw, decoder, () => undefined) : raw;
    const speed = new SpeedFloor(this.opts.minSpeedBytesPerS ?? 0, this.opts.minSpeedWindowMs ?? 0);
    // With a decoder in between, wire bytes are counted on the raw stream.
    if (decoder && speed.enabled) raw.on('data', (c: Buffer) => speed.addWire(c.length));
    const sink = new BodySink(exact);
    let truncated: HttpResponse['truncated'] = null;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        const size = sink.size;
        speed.addDecoded(chunk.length);
        if (speed.tooSlow()) {
          truncated = 'slow';
          break;
        }
        const need = Math.min(size + chunk.length, cap);
        if (reservation && need > reservation.held) {
          const step = Math.max(
            need - reservation.held,
            Math.min(reservation.held, MAX_GROW_STEP_BYTES),
          );
          const wait = reservation.grow(Math.min(step, cap - reservation.held));
          if (wait) {
            await waitFor(wait);
            speed.restart();
          }
        }
        if (size + chunk.length > cap) {
          sink.add(chunk.subarray(0, cap - size));
          truncated = 'length';
          break;
        }
        sink.add(chunk);
      }
    } catch {
      truncated = deadline.aborted ? 'time' : 'disconnect';
    } finally {
      raw.destroy();
      decoder?.destroy();
    }
    return { body: sink.body(), truncated, reservation, waitedMs };
  }

  private rememberTls(origin: string, socket: TLSSocket): void {
    const protocol = socket.getProtocol();
    const cipher = socket.getCipher();
    if (!protocol || !cipher) return;
    if (this.lastTls.size > 100_000) this.lastTls.clear();
    this.lastTls.set(origin, { protocol, cipherSuite: cipher.standardName || cipher.name });
  }

  /** Keeps the session undici caches weakly alive, for the server name's next connection. */
  private keepTlsSession(name: string, session: Buffer): void {
    this.tlsSessions.delete(name);
    if (this.tlsSessions.size >= TLS_SESSION_CACHE)
      this.tlsSessions.delete(this.tlsSessions.keys().next().value!);
    this.tlsSessions.set(name, session);
  }

  private rememberIp(host: string, ip: string): void {
    if (this.lastIp.size > 100_000) this.lastIp.clear();
    this.lastIp.set(host, ip);
  }
}

/**
 * One key for an origin's TLS facts, as undici's connector names it (host without IPv6
 * brackets, port '' for the default) and as a request's URL does.
 */
function tlsKey(hostname: string, port: string): string {
  return `${hostname.replace(/^\[|\]$/g, '')}:${port || '443'}`;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push([k, one]);
  }
  return out;
}

/** First value of a header (names compared case-insensitively). */
export function headerValue(headers: Array<[string, string]>, name: string): string | undefined {
  const n = name.toLowerCase();
  return headers.find(([k]) => k.toLowerCase() === n)?.[1];
}

function toFetchError(err: unknown, deadlineHit: boolean): FetchError {
  if (err instanceof FetchError) return err;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof FetchError) return cause;
  if (deadlineHit) return new FetchError('total_timeout', 'overall deadline passed');
  if (err instanceof undiciErrors.ConnectTimeoutError)
    return new FetchError('connect_timeout', err.message);
  if (err instanceof undiciErrors.HeadersTimeoutError)
    return new FetchError('first_byte_timeout', err.message);
  if (err instanceof undiciErrors.HeadersOverflowError)
    return new FetchError('headers_too_large', 'response headers over 64 KiB');
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED') return new FetchError('connect_refused', String(code));
  if (isTlsFailure(err)) return new FetchError('tls_error', `${code}: ${(err as Error).message}`);
  return new FetchError('network', err instanceof Error ? err.message : String(err));
}

/**
 * OpenSSL's certificate verdicts (UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED,
 * DEPTH_ZERO_SELF_SIGNED_CERT, …), Node's name check and TLS protocol failures (ERR_SSL_*,
 * EPROTO) are the server's TLS, not the network.
 */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function isTlsFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TLS_CODE.test(code);
}
