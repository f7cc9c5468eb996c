/** Options of {@link WarcWriter.open}. */
export interface WarcWriterOptions {
  /** Local root folder (the object-storage default), e.g. `./data/warc`. Created if missing. */
  dir: string;
  /**
   * Key prefix under `dir`, e.g. `crawl/2026-11-30/agent-1`. Files are
   * `${prefix}/${seq}.warc.gz` with `seq` zero-padded to 5 digits. Relative, no `..` segments.
   */
  prefix: string;
  /** Rotate to a new file once the current one has passed this size, in bytes. Default 1 GiB. */
  maxFileBytes?: number;
  /**
   * Close the current file once its first record is this old, in ms, however small it is (it
   * is handed to `onFileClosed` like a file rotated by size; the next record opens a new file).
   * Default 900 000 (15 min); 0 turns it off.
   */
  maxFileAgeMs?: number;
  /**
   * After a failed write, how often the writer tries to open a new file, in ms. Default 2000.
   * Until one opens, writes fail at once with WARC_UNAVAILABLE and `health()` says why.
   */
  retryIntervalMs?: number;
  /** Called when writes start failing and when they work again (for logs and alerts). */
  onHealthChange?: (health: WarcWriterHealth) => void;
  /** Software name and version for the warcinfo record, e.g. `crawler/0.1.0`. */
  software: string;
  /** Contact information for the warcinfo `operator` field. */
  operator?: string;
  /**
   * zlib level (0–9) of each record's gzip member. Default 3. Measured per 20 kB HTML exchange
   * (2 cores, shared): level 3 ≈ 0.5–0.6 ms CPU, level 6 ≈ 0.75–1.1 ms for output ~4 % smaller,
   * level 1 ≈ 0.5 ms for ~5 % larger. The agent's whole budget is 2 ms/page.
   */
  gzipLevel?: number;
  /**
   * Called with each file's key and local path once the writer has flushed (fsync) and closed
   * it: at rotation and at `close()`. Not awaited, so a slow upload never stalls writing; a throw
   * or rejection is reported as a process warning (`WARC_FILE_CLOSED_HOOK_FAILED`) and writing
   * goes on. `WarcShipper.onFileClosed` (storage module) fits here.
   */
  onFileClosed?: (key: string, path: string) => void | Promise<void>;
}

/**
 * Whether the writer can write. Unhealthy from a failed write (disk full, I/O error) until a new
 * file could be opened.
 */
export type WarcWriterHealth =
  | { ok: true }
  | {
      ok: false;
      /** errno code of the latest failure (`ENOSPC`, `EIO`…), or a WarcError code. */
      code: string;
      message: string;
      /** When writes started failing. */
      since: Date;
    };

/** One HTTP request and its response, as the fetcher saw them. */
export interface HttpExchange {
  /** Absolute URL that was requested. */
  url: string;
  /** When the response started arriving (WARC-Date; millisecond precision is kept). */
  fetchedAt: Date;
  /** Remote IP address the response came from (WARC-IP-Address). */
  ip?: string;
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Request headers in the order sent; a `Host` header is added to the record if absent. */
  requestHeaders: Array<[string, string]>;
  /** HTTP version without the `HTTP/` prefix, e.g. `1.1`. */
  httpVersion: string;
  /**
   * The TLS session of an https exchange: written as `WARC-Protocol: tls/1.3` beside the HTTP
   * one and `WARC-Cipher-Suite` (the IIPC field proposals, as Heritrix, StormCrawler and
   * Browsertrix write them).
   */
  tls?: { protocol: string; cipherSuite: string };
  /** Response status code. */
  status: number;
  /** Response reason phrase; empty means the standard phrase of `status`. */
  statusText: string;
  /** Response headers in the order received; repeated names (Set-Cookie) are kept. */
  responseHeaders: Array<[string, string]>;
  /**
   * The payload to store, after transfer and content decoding. We store the decoded body, so the
   * response record drops `Content-Encoding` and `Transfer-Encoding` (recording the originals as
   * `X-Crawler-Original-Content-Encoding` / `X-Crawler-Original-Transfer-Encoding`) and sets
   * `Content-Length` to the stored size (the original as `X-Crawler-Original-Content-Length`).
   */
  body: Uint8Array;
  /** Why the body is incomplete, if it is; written as `WARC-Truncated`. */
  truncated?: 'length' | 'time' | 'disconnect';
}

/** Where a record landed: enough to read it back alone (CDX fields). */
export interface WarcLocation {
  /** Path of the file relative to `dir`, e.g. `crawl/2026-11-30/agent-1/00000.warc.gz`. */
  key: string;
  /** Byte offset of the record's gzip member in the file. */
  offset: number;
  /** Compressed length of the record's gzip member, in bytes. */
  length: number;
  /** WARC-Record-ID, including the angle brackets: `<urn:uuid:…>`. */
  recordId: string;
  /**
   * WARC-Payload-Digest, `sha1:` + base32. For a revisit, the original's payload digest: `''`
   * for a server-not-modified revisit whose original digest was not given.
   */
  payloadDigest: string;
}

/** The earlier capture a revisit record refers to. */
export interface EarlierCapture {
  /** Its WARC-Record-ID, with or without angle brackets (WARC-Refers-To). */
  recordId: string;
  /** Its WARC-Target-URI (WARC-Refers-To-Target-URI). */
  url: string;
  /** Its WARC-Date (WARC-Refers-To-Date). */
  date: Date;
  /** Its WARC-Payload-Digest, e.g. `sha1:` + base32. */
  payloadDigest: string;
}

/**
 * What a revisit record says about the earlier capture, by WARC 1.1 revisit profile:
 *
 * - `identical-payload-digest`: the body was fetched again and its digest matched an earlier
 *   capture. Everything about that capture is required: the digest is the record's
 *   WARC-Payload-Digest, and the Refers-To fields let a replay tool find the payload.
 * - `server-not-modified`: a conditional GET was answered 304. The record holds the 304's
 *   headers as received. Whatever is known of the earlier capture is written (the caller may
 *   only know its URL and date, or nothing); WARC-Payload-Digest only when its digest is given.
 */
export type Revisit =
  | { profile: 'identical-payload-digest'; original: EarlierCapture }
  | { profile: 'server-not-modified'; original?: Partial<EarlierCapture> };

/** A record read back from a WARC file. */
export interface WarcReadRecord {
  /** WARC-Type, e.g. `response`. */
  type: string;
  /** WARC-Target-URI, null when absent (warcinfo). */
  targetUri: string | null;
  /** WARC-Record-ID, including the angle brackets. */
  recordId: string;
  /** WARC-Date as written (ISO 8601, UTC). */
  date: string;
  /** Byte offset of the record in the (compressed) file. */
  offset: number;
  /** Length of the record in the file, in (compressed) bytes. */
  length: number;
  /** HTTP status of a response or revisit record, else null. */
  httpStatus: number | null;
  /** Record payload: the HTTP body for `application/http` records, else the whole block. */
  payload: Uint8Array;
  /** WARC headers, names as written; repeated names joined with `, `. */
  headers: Record<string, string>;
  /** HTTP headers (names as written, repeats joined with `, `) of `application/http` records, else null. */
  httpHeaders: Record<string, string> | null;
  /** True when every digest present (block, and payload except on revisits) matches the bytes. */
  digestsOk: boolean;
}
