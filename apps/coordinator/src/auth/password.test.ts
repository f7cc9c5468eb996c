import { describe, expect, it } from 'vitest';
import { loadConfig } from '@crawler/domain/config';
import {
  hashPassword,
  needsRehash,
  OWASP_SCRYPT,
  scryptParams,
  verifyDecoy,
  verifyPassword,
} from './password';

// The OWASP cost takes a few hundred ms a hash: most cases use a cheap one, passed explicitly.
const CHEAP = scryptParams(12);

describe('password hashing (scrypt)', () => {
  it('defaults to OWASP’s parameters (N = 2^17, r = 8, p = 1) and verifies with them', async () => {
    expect(OWASP_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 });
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('PASSWORD_SCRYPT_LOG2_N defaults to OWASP’s cost', () => {
    expect(scryptParams(loadConfig({}).PASSWORD_SCRYPT_LOG2_N)).toEqual(OWASP_SCRYPT);
  });

  it('verifies hashes made with older, cheaper parameters (they carry their own)', async () => {
    const old = await hashPassword('legacy password', { N: 32768, r: 8, p: 1 });
    expect(old).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('legacy password', old)).toBe(true);
    expect(await verifyPassword('legacy passw0rd', old)).toBe(false);
  });

  it('needsRehash: weaker than the target parameters, or malformed; a stronger hash is kept', async () => {
    const cheap = await hashPassword('x', CHEAP);
    expect(needsRehash(cheap, CHEAP)).toBe(false);
    expect(needsRehash(cheap, scryptParams(13))).toBe(true);
    expect(needsRehash(cheap)).toBe(true);
    expect(needsRehash(cheap.replace('$8$1$', '$4$1$'), CHEAP)).toBe(true);
    expect(needsRehash(cheap.replace('$8$1$', '$8$2$'), CHEAP)).toBe(false);
    expect(needsRehash(await hashPassword('x', scryptParams(13)), CHEAP)).toBe(false);
    expect(needsRehash('bcrypt$1$2$3$4$5', CHEAP)).toBe(true);
  });

  it('salts each hash, so equal passwords give different hashes', async () => {
    const [a, b] = [await hashPassword('same', CHEAP), await hashPassword('same', CHEAP)];
    expect(a).not.toBe(b);
    expect(await verifyPassword('same', b)).toBe(true);
  });

  it('compares Unicode passwords in NFC form', async () => {
    const hash = await hashPassword('caf\u00e9', CHEAP);
    expect(await verifyPassword('cafe\u0301', hash)).toBe(true);
  });

  it('refuses malformed stored hashes instead of throwing', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$x$8$1$c2FsdA$aGFzaA',
      'bcrypt$1$2$3$4$5',
      'scrypt$16384$8$1$c2FsdA$',
      // N not a power of two, or costs that would take gigabytes: refused, not computed.
      'scrypt$1000$8$1$c2FsdA$aGFzaA',
      'scrypt$1048576$64$1$c2FsdA$aGFzaA',
      'scrypt$2097152$8$1$c2FsdA$aGFzaA',
      'scrypt$16384$0$1$c2FsdA$aGFzaA',
    ])
      expect(await verifyPassword('anything', stored), stored).toBe(false);
  });

  it('runs many hashes at once without failing (they take turns)', async () => {
    const hashes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => hashPassword(`p${i}`, CHEAP)),
    );
    const checks = await Promise.all(hashes.map((h, i) => verifyPassword(`p${i}`, h)));
    expect(checks).toEqual([true, true, true, true, true, true]);
  });

  it('the decoy check always fails', async () => {
    expect(await verifyDecoy('whatever', CHEAP)).toBe(false);
  });
});
