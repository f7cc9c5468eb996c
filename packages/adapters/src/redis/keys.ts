/**
 * The adapters' key module: the keys the Redis building blocks here derive from a base their
 * caller names (the callers' own key modules build the bases, with the hash tag that puts them
 * in one cluster slot). No other adapters file builds a key.
 */

/** The three keys of one shard of a CappedHash (same `{hash tag}`: one cluster slot). */
export interface CappedHashKeys {
  /** String: which generation is current (`b`, else `a`). */
  flag: string;
  /** Generation a (a hash). */
  a: string;
  /** Generation b (a hash). */
  b: string;
}

/**
 * The keys of a CappedHash shard whose first generation is `base` (`<base>:gen`, `<base>`,
 * `<base>:b`): `base` carries the shard's hash tag, so all three share its slot. The first
 * generation is the key a plain hash would have had, so an index that was one hash becomes a
 * capped one in place.
 */
export function cappedHashKeys(base: string): CappedHashKeys {
  return { flag: `${base}:gen`, a: base, b: `${base}:b` };
}
