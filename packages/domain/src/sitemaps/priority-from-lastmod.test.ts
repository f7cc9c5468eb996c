import { describe, expect, it } from 'vitest';
import { priorityFromLastmod } from './priority-from-lastmod';

const NOW = new Date('2024-06-15T12:00:00Z');
const HOUR_MS = 3_600_000;
const ago = (hours: number): Date => new Date(NOW.getTime() - hours * HOUR_MS);

describe('priorityFromLastmod', () => {
  it('ranks by age: day → 0, week → 1, month → 2, older → 3', () => {
    expect(priorityFromLastmod(ago(0), NOW)).toBe(0);
    expect(priorityFromLastmod(ago(23), NOW)).toBe(0);
    expect(priorityFromLastmod(ago(24), NOW)).toBe(0);
    expect(priorityFromLastmod(ago(25), NOW)).toBe(1);
    expect(priorityFromLastmod(ago(7 * 24), NOW)).toBe(1);
    expect(priorityFromLastmod(ago(7 * 24 + 1), NOW)).toBe(2);
    expect(priorityFromLastmod(ago(30 * 24), NOW)).toBe(2);
    expect(priorityFromLastmod(ago(30 * 24 + 1), NOW)).toBe(3);
    expect(priorityFromLastmod(new Date('2001-01-01'), NOW)).toBe(3);
  });

  it('treats unknown and unbelievable dates as 2', () => {
    expect(priorityFromLastmod(null, NOW)).toBe(2);
    expect(priorityFromLastmod(new Date(Number.NaN), NOW)).toBe(2);
    expect(priorityFromLastmod(ago(-2), NOW)).toBe(0); // small clock skew
    expect(priorityFromLastmod(ago(-48), NOW)).toBe(2); // far future: not believed
  });
});
