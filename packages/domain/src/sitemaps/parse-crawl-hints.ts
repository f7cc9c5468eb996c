/** The `<changefreq>` values the sitemap protocol defines. */
export const CHANGEFREQS: ReadonlySet<string> = new Set([
  'always',
  'hourly',
  'daily',
  'weekly',
  'monthly',
  'yearly',
  'never',
]);

/** A decimal number: `1`, `0.5`, `.5`, `1.0`. */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** `<changefreq>` lowercased when it is one of {@link CHANGEFREQS}, else null. */
export function parseChangefreq(value: string): string | null {
  const v = value.trim().toLowerCase();
  return CHANGEFREQS.has(v) ? v : null;
}

/** `<priority>` as a number in [0, 1] (the protocol's range), else null. */
export function parsePriority(value: string): number | null {
  const v = value.trim();
  if (!DECIMAL.test(v)) return null;
  const n = Number(v);
  return n >= 0 && n <= 1 ? n : null;
}
