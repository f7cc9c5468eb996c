import { describe, expect, it } from 'vitest';
import { loadLua } from '@crawler/adapters/redis';
import { LoginAttemptReply } from './login-throttle';

describe('LoginAttemptReply', () => {
  it('names the same numbers as the script (takeLoginAttempt-3.lua)', () => {
    const lua = loadLua(new URL('./takeLoginAttempt-3.lua', import.meta.url));
    const declared = [...lua.matchAll(/^local ([A-Z_]+) = (-?\d+)/gm)];
    expect(Object.fromEntries(declared.map(([, name, n]) => [name, Number(n)]))).toEqual(
      LoginAttemptReply,
    );
  });
});
