import { describe, expect, it } from 'vitest';
import { sessionFromSetCookies } from './coordinator';

describe('sessionFromSetCookies', () => {
  it("reads the coordinator's session id and its Max-Age (SESSION_TTL_MS in seconds)", () => {
    expect(
      sessionFromSetCookies([
        'other=1; Path=/',
        'crawler_session=abc123; Path=/; HttpOnly; SameSite=Lax; Max-Age=7200; Secure',
      ]),
    ).toEqual({ id: 'abc123', maxAgeS: 7200 });
  });

  it('has no Max-Age when the cookie carries none, and no session when cleared or absent', () => {
    expect(sessionFromSetCookies(['crawler_session=abc; Path=/'])).toEqual({
      id: 'abc',
      maxAgeS: null,
    });
    expect(sessionFromSetCookies(['crawler_session=; Path=/; Max-Age=0'])).toBeNull();
    expect(sessionFromSetCookies(['other=1'])).toBeNull();
  });
});
