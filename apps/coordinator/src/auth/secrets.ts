import { createHash, randomBytes } from 'node:crypto';

/** API tokens are `crw_` + 32 random bytes in base64url (43 characters): 256 bits. */
export const TOKEN_PREFIX = 'crw_';
/** Characters of a token kept in clear for display (`crw_` + 8). */
const DISPLAY_CHARS = 12;

export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The part of a token shown in lists, e.g. `crw_AbCd1234`. */
export function tokenDisplayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_CHARS);
}

/** A session id for the console cookie: 32 random bytes in base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * SHA-256 (hex) of a secret. Tokens and session ids are random with 256 bits, so a plain hash
 * (no salt, no slow KDF) is enough: it cannot be brute-forced, and it lets a lookup use an index.
 * A leak of the database then reveals no credential that works.
 */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
