import { describe, expect, it } from 'vitest';
import { robotsVerdict, ROBOTS_RETRY_BASE_S, ROBOTS_RETRY_MAX_S } from './robots-verdict';

describe('robotsVerdict', () => {
  it('parses the body of a 2xx', () => {
    expect(robotsVerdict({ status: 200 })).toEqual({ kind: 'rules' });
    expect(robotsVerdict({ status: 203 })).toEqual({ kind: 'rules' });
  });

  it('allows everything on a 4xx', () => {
    for (const status of [400, 401, 403, 404, 410, 451]) {
      expect(robotsVerdict({ status })).toEqual({ kind: 'allow_all' });
    }
  });

  it('disallows everything on 429, 5xx and failures', () => {
    for (const status of [429, 500, 502, 503, 504]) {
      expect(robotsVerdict({ status })).toEqual({
        kind: 'disallow_all',
        retryAfterS: ROBOTS_RETRY_BASE_S,
      });
    }
    for (const error of ['timeout', 'network', 'too_many_redirects'] as const) {
      expect(robotsVerdict({ error })).toEqual({
        kind: 'disallow_all',
        retryAfterS: ROBOTS_RETRY_BASE_S,
      });
    }
  });

  it('fails closed on statuses that should not be final', () => {
    for (const status of [0, 100, 301, 304, 600]) {
      expect(robotsVerdict({ status }).kind).toBe('disallow_all');
    }
  });

  it('backs off exponentially, honours Retry-After and caps the wait', () => {
    expect(robotsVerdict({ status: 503 }, 2)).toEqual({
      kind: 'disallow_all',
      retryAfterS: ROBOTS_RETRY_BASE_S * 4,
    });
    expect(robotsVerdict({ status: 503, retryAfterS: 3600 })).toEqual({
      kind: 'disallow_all',
      retryAfterS: 3600,
    });
    expect(robotsVerdict({ status: 503, retryAfterS: 10 })).toEqual({
      kind: 'disallow_all',
      retryAfterS: ROBOTS_RETRY_BASE_S,
    });
    expect(robotsVerdict({ error: 'timeout' }, 100)).toEqual({
      kind: 'disallow_all',
      retryAfterS: ROBOTS_RETRY_MAX_S,
    });
    expect(robotsVerdict({ status: 503, retryAfterS: 1e9 })).toEqual({
      kind: 'disallow_all',
      retryAfterS: ROBOTS_RETRY_MAX_S,
    });
    expect(robotsVerdict({ error: 'network' }, -1)).toEqual({
      kind: 'disallow_all',
      retryAfterS: ROBOTS_RETRY_BASE_S,
    });
  });
});
