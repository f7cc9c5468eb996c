// Number formatting for the tiles. A fixed locale keeps server and client output identical.

const LOCALE = 'en-US';
const integer = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(LOCALE, { notation: 'compact', maximumFractionDigits: 1 });
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** Exact counts up to ten million ("1,234,567"), compact beyond ("12.3B"). */
export function formatCount(value: number): string {
  return Math.abs(value) < 10_000_000 ? integer.format(value) : compact.format(value);
}

/** The exact figure, for a tooltip next to a compact one. */
export function formatExact(value: number): string {
  return integer.format(value);
}

/** Binary units: 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${integer.format(Math.max(0, bytes))} B`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = value < 10 ? 2 : value < 100 ? 1 : 0;
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit] ?? 'B'}`;
}

/** Pages per second: one decimal below 100, whole numbers above. */
export function formatRate(perSecond: number): string {
  return perSecond < 100 ? perSecond.toFixed(1) : integer.format(perSecond);
}

/** "12.5%"; "0%" when the total is zero. */
export function formatPercent(part: number, total: number): string {
  if (total <= 0) return '0%';
  const pct = (part / total) * 100;
  if (pct > 0 && pct < 0.1) return '<0.1%';
  return `${pct.toFixed(pct < 10 ? 1 : 0)}%`;
}
