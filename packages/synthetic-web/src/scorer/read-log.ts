/**
 * Reads a JSON-lines request log file written by the synthetic web.
 */
import { readFile } from 'node:fs/promises';
import type { RequestLogEntry } from '../types.js';

const NUMBER_FIELDS = ['seq', 'status', 'bytes', 'startMs', 'endMs', 'inflightAtStart'] as const;
const STRING_FIELDS = ['host', 'ip', 'method', 'target', 'url', 'ua'] as const;
const BOOLEAN_FIELDS = ['conditional', 'aborted'] as const;

/** Checks one parsed line and returns it typed; throws with the reason otherwise. */
export function toLogEntry(value: unknown): RequestLogEntry {
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  const o = value as Record<string, unknown>;
  for (const k of NUMBER_FIELDS)
    if (typeof o[k] !== 'number') throw new Error(`field ${k} is not a number`);
  for (const k of STRING_FIELDS)
    if (typeof o[k] !== 'string') throw new Error(`field ${k} is not a string`);
  for (const k of BOOLEAN_FIELDS)
    if (typeof o[k] !== 'boolean') throw new Error(`field ${k} is not a boolean`);
  return o as unknown as RequestLogEntry;
}

/**
 * Reads a request log file (one JSON object per line; blank lines ignored).
 * @throws on a line that is not a valid entry, naming the line number.
 */
export async function readRequestLog(path: string): Promise<RequestLogEntry[]> {
  const text = await readFile(path, 'utf8');
  const out: RequestLogEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(toLogEntry(JSON.parse(line)));
    } catch (err) {
      throw new Error(`${path}:${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return out;
}
