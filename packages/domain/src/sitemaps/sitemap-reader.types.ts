/** Consumes a decoded sitemap body chunk by chunk. */
export interface SitemapReader {
  /** Feeds the next piece of text. Returns false when the reader wants no more (stop reading). */
  push(text: string): boolean;
  /** The body ended normally: finish, reporting what is left unclosed. */
  end(): void;
  /** The body was cut (byte limit, broken gzip): keep what was complete, report nothing more. */
  abort(): void;
}
