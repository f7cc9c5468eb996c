/** ISO 8601 of epoch ms, or null for 0 (ClickHouse's empty DateTime64). */
export function isoOrNull(ms: number): string | null {
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}

/** ISO 8601 of a ClickHouse DateTime64 in UTC as JSON returns it (`2026-11-30 09:42:22.123`). */
export function isoOfClickhouse(value: string): string {
  return new Date(`${value.replace(' ', 'T')}Z`).toISOString();
}
