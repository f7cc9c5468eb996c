import { describe, expect, it } from 'vitest';
import { hashPassword, verifyDecoy, verifyPassword } from './password';

describe('password hashing (scrypt)', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
  });

  it('salts each hash, so equal passwords give different hashes', async () => {
    const [a, b] = [await hashPassword('same'), await hashPassword('same')];
    expect(a).not.toBe(b);
    expect(await verifyPassword('same', b)).toBe(true);
  });

  it('compares Unicode passwords in NFC form', async () => {
    const hash = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', hash)).toBe(true);
  });

  it('refuses malformed stored hashes instead of throwing', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$x$8$1$c2FsdA$aGFzaA',
      'bcrypt$1$2$3$4$5',
      'scrypt$16384$8$1$c2FsdA$',
    ])
      expect(await verifyPassword('anything', stored), stored).toBe(false);
  });

  it('the decoy check always fails', async () => {
    expect(await verifyDecoy('whatever')).toBe(false);
  });
});
