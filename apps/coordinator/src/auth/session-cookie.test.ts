import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './session-cookie';

describe('session cookie', () => {
  it('is httpOnly, SameSite=Lax, for the whole API, and Secure only when configured', () => {
    expect(sessionCookie('abc', 3_600_000, false)).toBe(
      'crawler_session=abc; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600',
    );
    expect(sessionCookie('abc', 3_600_000, true)).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toBe(
      'crawler_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
    );
  });

  it('is read from among other cookies', () => {
    expect(readSessionCookie({ cookie: 'a=1; crawler_session=xyz; b=2' })).toBe('xyz');
    expect(readSessionCookie({ cookie: 'crawler_session_old=1' })).toBeNull();
    expect(readSessionCookie({})).toBeNull();
  });
});
