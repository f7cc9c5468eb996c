/**
 * One stream entry as Redis returns it: its id and its fields as `[name, value, …]`. `fields` is
 * null for an entry still pending in a group whose data was trimmed away (MAXLEN) since.
 */
export interface RawStreamEntry {
  id: string;
  fields: string[] | null;
}

function isEntry(value: unknown): value is [string, string[] | null] {
  return (
    Array.isArray(value) &&
    typeof value[0] === 'string' &&
    (value[1] === null || Array.isArray(value[1]))
  );
}

/** The entries of one stream in a reply: a list of `[id, fields]` (null items are skipped). */
export function parseEntries(value: unknown): RawStreamEntry[] {
  if (!Array.isArray(value)) return [];
  const out: RawStreamEntry[] = [];
  for (const item of value) {
    if (!isEntry(item)) continue;
    const fields = item[1];
    out.push({ id: item[0], fields: fields === null ? null : fields.map(String) });
  }
  return out;
}

/**
 * Entries per stream key of an XREAD/XREADGROUP reply, whatever shape the client gives it:
 * null (nothing, or a BLOCK that timed out), RESP2's `[[key, entries], …]`, RESP3's map
 * flattened to `[key, entries, key, entries, …]` (ioredis 6's default), or a plain object.
 */
export function parseReadReply(reply: unknown): Map<string, RawStreamEntry[]> {
  const out = new Map<string, RawStreamEntry[]>();
  if (reply === null || reply === undefined) return out;
  if (!Array.isArray(reply)) {
    if (typeof reply === 'object') {
      for (const [key, entries] of Object.entries(reply)) out.set(key, parseEntries(entries));
    }
    return out;
  }
  if (reply.length > 0 && typeof reply[0] === 'string') {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      out.set(String(reply[i]), parseEntries(reply[i + 1]));
    }
    return out;
  }
  for (const pair of reply) {
    if (Array.isArray(pair) && typeof pair[0] === 'string') {
      out.set(pair[0], parseEntries(pair[1]));
    }
  }
  return out;
}

/** An XAUTOCLAIM reply: the cursor to continue from (`0-0` when the sweep is done) and the entries. */
export function parseAutoclaimReply(reply: unknown): { cursor: string; entries: RawStreamEntry[] } {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') return { cursor: '0-0', entries: [] };
  return { cursor: reply[0], entries: parseEntries(reply[1]) };
}

/** A flat `[name, value, …]` reply (XINFO) as an object. */
export function pairsToObject(reply: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  } else if (reply && typeof reply === 'object') Object.assign(out, reply);
  return out;
}
