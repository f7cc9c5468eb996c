export interface UrlFetch {
  fetched_at: string;
  status: number;
  error_code: string;
  fetch_ms: number;
  bytes: number;
  change: string;
  record_type: string;
  /** The URL whose body this fetch repeated exactly, or ''. */
  duplicate_of: string;
  warc_key: string;
  warc_offset: number;
  warc_length: number;
}

export type VerdictReason =
  | 'fetched'
  | 'robots'
  | 'blocked'
  | 'trap'
  | 'soft_404'
  | 'budget'
  | 'duplicate'
  | 'not_yet_due'
  | 'queued'
  | 'unknown';

/** `GET /v1/urls?url=`. */
export interface UrlReport {
  url: string;
  url_fp: string;
  host: string;
  history: UrlFetch[];
  captures: UrlFetch[];
  page: {
    title: string;
    description: string;
    lang: string;
    text: string;
    links: Array<{ url: string; nofollow: boolean }>;
    canonical: string;
    noindex: boolean;
    simhash: string;
    content_hash: string;
  } | null;
  verdict: { fetched: boolean; reason: VerdictReason; detail: string };
  recrawl: { interval_ms: number; due_at: string | number } | null;
}

/** `GET /v1/captures?key=&offset=&length=`: one WARC record read back. */
export interface CaptureRecord {
  warc_headers: Record<string, string>;
  http_status: number;
  http_headers: Record<string, string | string[]>;
  body: string;
  truncated?: boolean;
  body_bytes: number;
  digests_ok: boolean;
}
