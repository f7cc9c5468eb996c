import type { z } from 'zod';

/**
 * `raw` read as JSON and checked by `schema`: zod's answer, or null when `raw` is not JSON. For
 * values read back from Redis or a channel, where a malformed one is ignored (logged), never
 * thrown.
 */
export function safeParseJson<S extends z.ZodType>(
  schema: S,
  raw: string,
): z.ZodSafeParseResult<z.output<S>> | null {
  try {
    return schema.safeParse(JSON.parse(raw));
  } catch {
    return null;
  }
}
