import { describe, expect, it } from 'vitest';
import { parseLastmod } from './parse-lastmod';

const iso = (v: string): string | null => parseLastmod(v)?.toISOString() ?? null;

describe('parseLastmod', () => {
  it('reads every W3C datetime precision', () => {
    expect(iso('2024')).toBe('2024-01-01T00:00:00.000Z');
    expect(iso('2024-06')).toBe('2024-06-01T00:00:00.000Z');
    expect(iso('2024-06-15')).toBe('2024-06-15T00:00:00.000Z');
    expect(iso('2024-06-15T10:20+01:00')).toBe('2024-06-15T09:20:00.000Z');
    expect(iso('2024-06-15T10:20:30Z')).toBe('2024-06-15T10:20:30.000Z');
    expect(iso('2024-06-15T10:20:30.45-05:30')).toBe('2024-06-15T15:50:30.450Z');
    expect(iso(' 2024-06-15T10:20:30.123456Z\n')).toBe('2024-06-15T10:20:30.123Z');
  });

  it('tolerates a space separator, a missing zone (UTC) and +hhmm', () => {
    expect(iso('2024-06-15 10:20:30')).toBe('2024-06-15T10:20:30.000Z');
    expect(iso('2024-06-15T10:20:30+0200')).toBe('2024-06-15T08:20:30.000Z');
  });

  it('rejects what is not a valid date', () => {
    for (const bad of [
      '',
      'not-a-date',
      '2024-13-01',
      '2024-02-30',
      '2024-06-15T25:00Z',
      '2024-06-15T10:61Z',
      '2024-06-15T10:20+25:00',
      '15/06/2024',
      'Sat, 15 Jun 2024 10:20:30 GMT',
      '2024-6-5',
    ]) {
      expect(parseLastmod(bad), bad).toBeNull();
    }
  });

  it('handles leap days and years before 100', () => {
    expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(parseLastmod('2023-02-29')).toBeNull();
    expect(parseLastmod('0050-01-01')?.getUTCFullYear()).toBe(50);
  });
});
