import { StorageError } from './storage-errors';

/** Longest key, in UTF-8 bytes (the S3 limit). */
export const MAX_KEY_BYTES = 1024;
/** Longest `/`-separated segment of a key, in UTF-8 bytes (a file name on common file systems). */
export const MAX_SEGMENT_BYTES = 255;
/** Segments starting with this are reserved for the local store's staging files. */
export const RESERVED_SEGMENT_PREFIX = '.~';

// C0 controls, DEL and backslash: unsafe in paths, logs and XML 1.0 listings.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f\\]/;
/** A surrogate not paired (in `u` mode well-formed pairs match as one code point, not as Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `key` is not a valid object key, or null when it is. A key is 1–1024 UTF-8 bytes of
 * `/`-separated segments; it must not start with `/`, and no segment may be empty, `.` or `..`,
 * longer than 255 bytes, or start with `.~` (reserved). Control characters and `\` are refused.
 * The rules are the same for every store, so a key that works locally also works on S3 and maps
 * to a path under the local root that cannot escape it.
 */
export function keyProblem(key: string): string | null {
  if (key.length === 0) return 'empty key';
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `longer than ${MAX_KEY_BYTES} bytes`;
  if (key.startsWith('/')) return 'starts with "/"';
  if (FORBIDDEN_CHARS.test(key)) return 'contains a control character or "\\"';
  if (LONE_SURROGATE.test(key)) return 'contains a lone surrogate';
  for (const segment of key.split('/')) {
    if (segment === '') return 'has an empty segment ("//" or a trailing "/")';
    if (segment === '.' || segment === '..') return `has a "${segment}" segment`;
    if (segment.startsWith(RESERVED_SEGMENT_PREFIX)) {
      return `has a segment starting with "${RESERVED_SEGMENT_PREFIX}" (reserved)`;
    }
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      return `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
    }
  }
  return null;
}

/** Throws STORAGE_BAD_KEY unless `key` is a valid object key (see {@link keyProblem}). */
export function validateKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== null) {
    throw new StorageError('STORAGE_BAD_KEY', `bad key ${JSON.stringify(key)}: ${problem}`);
  }
}

/**
 * Throws STORAGE_BAD_KEY unless `prefix` is a valid list prefix: empty (everything), or text
 * that some valid key starts with, e.g. `crawl/`, `crawl/2026-11` (a prefix is matched as a
 * string, as S3 does, not as a folder).
 */
export function validatePrefix(prefix: string): void {
  if (prefix === '') return;
  // A prefix is valid when one more character makes a valid key: `a/` → `a/x`, `a/.` → `a/.x`.
  const problem = keyProblem(`${prefix}x`);
  if (problem !== null) {
    throw new StorageError('STORAGE_BAD_KEY', `bad prefix ${JSON.stringify(prefix)}: ${problem}`);
  }
}

/** Throws STORAGE_BAD_RANGE unless `offset` ≥ 0 and `length` ≥ 1 are safe integers. */
export function validateRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new StorageError('STORAGE_BAD_RANGE', `bad offset ${offset}: expected an integer ≥ 0`);
  }
  if (!Number.isSafeInteger(length) || length < 1) {
    throw new StorageError('STORAGE_BAD_RANGE', `bad length ${length}: expected an integer ≥ 1`);
  }
}
