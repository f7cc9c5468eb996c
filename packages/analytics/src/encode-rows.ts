import { setImmediate as nextTurn } from 'node:timers/promises';
import type { z } from 'zod';
import { AnalyticsError } from './analytics-errors';

/** A DateTime64 as ClickHouse returns it in JSON (`2026-11-30 12:00:00.123`, UTC) as a Date. */
export function parseClickhouseDateTime(text: string): Date {
  return new Date(`${text.replace(' ', 'T')}Z`);
}

/** Rows per slice: the event loop gets a turn between slices (~10 µs of work per row). */
const SLICE_ROWS = 10_000;
/**
 * Lines are joined this many at a time: a short-lived line string dies in the young generation
 * instead of surviving (and being copied by) every scavenge until its slice is done.
 */
const JOIN_ROWS = 500;

/**
 * Validates every row against `schema` (all or nothing; skipped when `validate` is false) and
 * encodes them one JSON value per line (`toLine` gives each row's JSON value), yielding to the
 * event loop between slices so a big batch does not stall the process.
 * `fast`: the schema's compiled check (`compileFastCheck`); a row it passes goes to `toLine` as it
 * is, not as zod's output, so `toLine` must fill the schema's defaults itself.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the table, the first bad row's index and field.
 */
export async function encodeRows<In, Out>(
  table: string,
  schema: z.ZodType<Out, In>,
  rows: readonly In[],
  toLine: (row: Out) => unknown,
  validate = true,
  fast: ((row: unknown) => boolean) | null = null,
): Promise<Buffer> {
  const slices: string[] = [];
  let lines: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    let row: Out;
    if (validate && !fast?.(rows[i])) {
      const parsed = schema.safeParse(rows[i]);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path.join('.') || '(row)';
        throw new AnalyticsError(
          'ANALYTICS_BAD_ROW',
          `${table} row ${i}: field ${field}: ${issue?.message ?? 'invalid'}`,
          { cause: parsed.error },
        );
      }
      row = parsed.data;
    } else row = rows[i] as unknown as Out;
    lines.push(JSON.stringify(toLine(row)));
    if (lines.length === JOIN_ROWS) {
      slices.push(`${lines.join('\n')}\n`);
      lines = [];
    }
    // Slices also keep a huge batch from building one string near V8's length limit.
    if ((i + 1) % SLICE_ROWS === 0) await nextTurn();
  }
  if (lines.length > 0) slices.push(`${lines.join('\n')}\n`);
  // One allocation, each slice written in place: no concatenation of copies.
  const out = Buffer.allocUnsafe(slices.reduce((n, s) => n + Buffer.byteLength(s), 0));
  let at = 0;
  for (const slice of slices) at += out.write(slice, at);
  return out;
}
