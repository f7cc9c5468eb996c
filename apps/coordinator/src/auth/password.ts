import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { HashSlots, type HashTurn } from './hash-slots';

// scrypt from Node's crypto (no dependency), run on libuv's thread pool so a login never
// blocks the event loop. Each hash is `scrypt$N$r$p$<salt>$<key>`: it carries its parameters,
// so they can be raised without invalidating existing passwords (login rehashes those).

/** scrypt's cost parameters: CPU/memory cost N (a power of two), block size r, parallelism p. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP Password Storage Cheat Sheet: N = 2^17, r = 8, p = 1 — 128 MiB and a few hundred ms
 * per hash. The default of every function here; PASSWORD_SCRYPT_LOG2_N changes N (tests).
 */
export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

/** The parameters for a configured log2(N), with OWASP's r and p. */
export function scryptParams(log2N: number): ScryptParams {
  return { ...OWASP_SCRYPT, N: 2 ** log2N };
}

const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Stored hashes asking for more memory than this (128 × N × r bytes) are refused. */
const MAX_STORED_MEMORY_BYTES = 2 ** 30;
const MAX_STORED = { N: 2 ** 20, r: 64, p: 16 };
/**
 * Hashes computed at once, in this process. Each holds 128 × N × r bytes (128 MiB at OWASP's
 * cost) and one of libuv's 4 threads, which DNS lookups and file reads share: a burst of
 * logins waits its turn, in a bounded queue (hash-slots.ts), instead of taking all of them.
 */
const MAX_CONCURRENT = 2;
const slots = new HashSlots(MAX_CONCURRENT);

function derive(
  password: string,
  salt: Buffer,
  params: ScryptParams,
  turn: HashTurn | undefined,
): Promise<Buffer> {
  const { N, r, p } = params;
  // Node refuses scrypt above maxmem (32 MiB by default); scrypt needs 128 × r × (N + p + 2).
  const maxmem = 2 * 128 * r * (N + p + 2);
  return slots.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N, r, p, maxmem }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
    turn,
  );
}

/** `scrypt$N$r$p$<salt>$<key>` with a fresh random salt (base64url). */
export async function hashPassword(
  password: string,
  params: ScryptParams = OWASP_SCRYPT,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, undefined);
  return [
    'scrypt',
    params.N,
    params.r,
    params.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

interface StoredHash extends ScryptParams {
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  const whole = (v: number, max: number) => Number.isInteger(v) && v >= 1 && v <= max;
  if (!whole(N, MAX_STORED.N) || !whole(r, MAX_STORED.r) || !whole(p, MAX_STORED.p)) return null;
  // N must be a power of two above 1; scrypt refuses anything else.
  if (N < 2 || (N & (N - 1)) !== 0 || key.length === 0) return null;
  if (128 * N * r > MAX_STORED_MEMORY_BYTES) return null;
  return { N, r, p, salt, key };
}

/**
 * Constant-time check of a password against a stored hash; false for a malformed hash. A login
 * passes its `turn`: it may then be refused with HashQueueFullError while too many wait.
 * New hashes ({@link hashPassword}: accounts, start-up, a rehash after login) are never refused.
 */
export async function verifyPassword(
  password: string,
  stored: string,
  turn?: HashTurn,
): Promise<boolean> {
  const h = parseHash(stored);
  if (!h) return false;
  const key = await derive(password, h.salt, h, turn);
  return key.length === h.key.length && timingSafeEqual(key, h.key);
}

/**
 * Whether a stored hash is weaker than `params` (a lower N, r or p, or another key length), so
 * that the password should be hashed again once it is known, at login. A stronger hash is kept.
 */
export function needsRehash(stored: string, params: ScryptParams = OWASP_SCRYPT): boolean {
  const h = parseHash(stored);
  if (!h) return true;
  return h.N < params.N || h.r < params.r || h.p < params.p || h.key.length !== KEY_BYTES;
}

// A hash of a random password per cost, checked when the email is unknown, so that a wrong
// email takes as long as a wrong password and the answer time does not reveal which accounts
// exist.
const decoys = new Map<string, Promise<string>>();
export async function verifyDecoy(
  password: string,
  params: ScryptParams = OWASP_SCRYPT,
  turn?: HashTurn,
): Promise<false> {
  const key = `${params.N}$${params.r}$${params.p}`;
  let decoy = decoys.get(key);
  if (!decoy) {
    decoy = hashPassword(randomBytes(16).toString('hex'), params);
    decoys.set(key, decoy);
    decoy.catch(() => decoys.delete(key));
  }
  await verifyPassword(password, await decoy, turn);
  return false;
}
