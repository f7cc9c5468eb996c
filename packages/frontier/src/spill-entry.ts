/**
 * A queue entry as the spill stores it (frontier_spill.entry): the URL's `https://<host>` (or
 * `http://<host>`) is dropped when the host is the row's own, which every row already names by
 * its host id: ~30 bytes less per spilled URL. The URL is the entry's sixth field
 * (`fp|attempts|depth|redirects|source|url`, queue-entry.ts); in the stored form it starts with
 * `/` (https, host dropped), `:` (http, host dropped), `=` (kept as is, escaped) or anything
 * else (kept as is: an absolute URL starts with its scheme).
 */

/** Where the URL field of an entry starts (after its fifth `|`), or -1. */
function urlStart(entry: string): number {
  let at = -1;
  for (let i = 0; i < 5; i++) {
    at = entry.indexOf('|', at + 1);
    if (at < 0) return -1;
  }
  return at + 1;
}

/** The stored form of a host's queue entry. */
export function packSpillEntry(entry: string, host: string): string {
  const at = urlStart(entry);
  if (at < 0) return entry;
  const url = entry.slice(at);
  const head = entry.slice(0, at);
  if (url.startsWith(`https://${host}/`)) return head + url.slice(8 + host.length);
  if (url.startsWith(`http://${host}/`)) return `${head}:${url.slice(7 + host.length)}`;
  if (/^[/:=]/.test(url)) return `${head}=${url}`;
  return entry;
}

/** The queue entry back from its stored form (the inverse of packSpillEntry). */
export function unpackSpillEntry(stored: string, host: string): string {
  const at = urlStart(stored);
  if (at < 0) return stored;
  const head = stored.slice(0, at);
  switch (stored[at]) {
    case '/':
      return `${head}https://${host}${stored.slice(at)}`;
    case ':':
      return `${head}http://${host}${stored.slice(at + 1)}`;
    case '=':
      return head + stored.slice(at + 1);
    default:
      return stored;
  }
}
