import { buildEntry } from './build-entry';
import type {
  ParsedSitemap,
  RawSitemapEntry,
  SitemapEntry,
  SitemapKind,
  SitemapTruncation,
} from './parse-sitemap.types';
import type { SitemapScope } from './resolve-loc';

/** Errors kept in a result (the rest are only counted). */
export const MAX_REPORTED_ERRORS = 20;

/**
 * Gathers the entries and problems of one sitemap while it is read: validates each raw
 * entry, keeps at most `maxUrls`, the first {@link MAX_REPORTED_ERRORS} errors and a count
 * of all of them. Memory is bounded by `maxUrls`.
 */
export class EntryCollector {
  kind: SitemapKind = 'urlset';
  private readonly entries: SitemapEntry[] = [];
  private readonly errors: string[] = [];
  private errorCount = 0;
  private truncated: SitemapTruncation | null = null;

  constructor(
    private readonly maxUrls: number,
    private readonly scope: SitemapScope | null,
  ) {}

  /** True once no more entries are wanted (the `max_urls` limit was hit). */
  get full(): boolean {
    return this.truncated === 'max_urls';
  }

  /** Records a problem; only the first {@link MAX_REPORTED_ERRORS} are kept. */
  error(message: string): void {
    this.errorCount++;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push(message);
  }

  /**
   * Validates and keeps one entry. Returns false when the entry did not fit (the
   * `max_urls` limit): the reader should stop.
   */
  add(raw: RawSitemapEntry): boolean {
    if (this.full) return false;
    const { entry, problems } = buildEntry(raw, this.kind, this.scope);
    if (entry !== null && this.entries.length >= this.maxUrls) {
      this.truncated = 'max_urls';
      return false;
    }
    for (const p of problems) this.error(p);
    if (entry !== null) this.entries.push(entry);
    return true;
  }

  /** Marks the body as cut at the byte limit (unless the URL limit stopped it first). */
  truncate(reason: SitemapTruncation): void {
    this.truncated ??= reason;
  }

  /** The result so far. */
  result(): ParsedSitemap {
    return {
      kind: this.kind,
      entries: this.entries,
      truncated: this.truncated,
      errors: this.errors,
      errorCount: this.errorCount,
    };
  }
}
