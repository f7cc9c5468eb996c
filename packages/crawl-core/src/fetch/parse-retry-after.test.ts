import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './parse-retry-after';

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it('reads delay-seconds', () => expect(parseRetryAfterMs('120', now)).toBe(120_000));
  it('reads an HTTP-date', () =>
    expect(parseRetryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', now)).toBe(30_000));
  it('treats a past date, garbage and absence as 0', () => {
    expect(parseRetryAfterMs('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBe(0);
    expect(parseRetryAfterMs(undefined, now)).toBe(0);
  });
  it('caps absurd values at one day', () =>
    expect(parseRetryAfterMs('99999999', now)).toBe(86_400_000));
});
