export interface SeedRejection {
  index: number;
  url: string;
  reason: string;
  detail?: string;
}

/** `POST /v1/seeds` answer (also the body of its 400, beside `error`). */
export interface SeedsResult {
  valid: number;
  added: number;
  enqueued: number;
  /** Seeds taken as sitemaps (their listed pages are queued when fetched). */
  sitemaps?: number;
  rejected: SeedRejection[];
}

export function isSeedsResult(v: unknown): v is SeedsResult {
  const r = v as Partial<SeedsResult> | null;
  return !!r && typeof r.valid === 'number' && Array.isArray(r.rejected);
}

/**
 * One URL per line; blank lines and `#` comments are dropped. A CSV line keeps its first
 * column. Nothing else is split: a bad line goes to the coordinator whole, so it is refused
 * whole, with its reason.
 */
export function parseUrlList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => (/^https?:\/\/[^,\s]+,/i.test(l) ? l.slice(0, l.indexOf(',')) : l));
}
