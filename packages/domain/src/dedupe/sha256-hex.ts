import { hash } from 'node:crypto';

/**
 * SHA-256 of raw bytes as 64 lowercase hex characters: the exact-duplicate key
 * (`ContentSeen(sha256)`), computed over the body as received after decompression.
 */
export function sha256Hex(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex');
}
