/** What link discovery needs of a parsed page. */
export interface ExtractedPage {
  title: string;
  /** <base href> as written, if any. */
  baseHref: string | undefined;
  /** href values as written (resolve with the page's effective base). */
  links: Array<{ href: string; nofollow: boolean }>;
  /** Page-level meta robots nofollow. */
  nofollow: boolean;
}
