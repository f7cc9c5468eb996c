/**
 * W3C Datetime (the profile of ISO 8601 the sitemap protocol uses): `YYYY`, `YYYY-MM`,
 * `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.s…]]TZD`. Leniencies seen in real sitemaps: a space
 * instead of `T`, a missing TZD (taken as UTC) and `+hhmm` without the colon.
 */
const W3C_DATETIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?)?)?$/;

/** ms in one minute. */
const MINUTE_MS = 60_000;

/**
 * Parses a sitemap `<lastmod>` value into an instant. Missing parts default to the start of
 * the period (`2024-06` → 2024-06-01T00:00:00Z). Returns null for anything that is not a
 * valid W3C datetime (out-of-range fields included, e.g. `2024-02-30`). Never throws.
 */
export function parseLastmod(value: string): Date | null {
  const m = W3C_DATETIME.exec(value.trim());
  if (m === null) return null;
  const year = Number(m[1]);
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  if (utc.getUTCDate() !== day) return null;
  const offsetMin = parseOffsetMinutes(m[8]);
  if (offsetMin === null) return null;
  return new Date(utc.getTime() - offsetMin * MINUTE_MS);
}

/** `Z` / absent → 0; `+02:00` / `-0530` → signed minutes; out of range → null. */
function parseOffsetMinutes(tzd: string | undefined): number | null {
  if (tzd === undefined || tzd === 'Z' || tzd === 'z') return 0;
  const digits = tzd.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return null;
  return (tzd.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
