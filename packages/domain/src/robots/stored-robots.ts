import { z } from 'zod';
import { storedRobotsMetaSchema, type StoredRobotsMeta } from '../messages/robots-entry';

// The stored entry's schema is a message of its own (domain/messages), re-exported here.
export { storedRobotsMetaSchema, type StoredRobotsMeta };

/** A stored fetch with its body (the robots.txt as text; '' unless it gave rules). */
export type StoredRobots = StoredRobotsMeta & { body: string };

/**
 * One Redis value: the metadata as a line of JSON, then the body's bytes as fetched. The body
 * goes to Redis as it came off the wire — not escaped into JSON, which made every 500 KiB
 * robots.txt two more heap strings (the JSON, and the command built around it) to collect.
 */
export function encodeStoredRobots(meta: StoredRobotsMeta, body: Uint8Array): Buffer {
  const head = Buffer.from(`${JSON.stringify(meta)}\n`);
  return body.length === 0 ? head : Buffer.concat([head, body]);
}

/**
 * Reads a stored value: the layout of {@link encodeStoredRobots}, or the earlier one (one JSON
 * object with `body` inside; JSON never holds a raw newline, so the two cannot be confused).
 * Null when it does not validate.
 */
export function decodeStoredRobots(raw: string): StoredRobots | null {
  const nl = raw.indexOf('\n');
  let json: unknown;
  let body: string;
  try {
    if (nl < 0) {
      json = JSON.parse(raw);
      body = z.object({ body: z.string().default('') }).parse(json).body;
    } else {
      json = JSON.parse(raw.slice(0, nl));
      body = raw.slice(nl + 1);
    }
  } catch {
    return null;
  }
  const meta = storedRobotsMetaSchema.safeParse(json);
  return meta.success ? { ...meta.data, body } : null;
}
