import { describe, expect, it } from 'vitest';
import { parseChangefreq, parsePriority } from './parse-crawl-hints';

describe('parseChangefreq / parsePriority', () => {
  it('accepts the protocol values, case-insensitively and trimmed', () => {
    expect(parseChangefreq(' Weekly ')).toBe('weekly');
    expect(parseChangefreq('never')).toBe('never');
    expect(parseChangefreq('fortnightly')).toBeNull();
    expect(parseChangefreq('')).toBeNull();
  });

  it('accepts decimals in [0, 1] only', () => {
    expect(parsePriority('0.5')).toBe(0.5);
    expect(parsePriority(' 1.0 ')).toBe(1);
    expect(parsePriority('.25')).toBe(0.25);
    expect(parsePriority('0')).toBe(0);
    for (const bad of ['1.01', '-0.1', '5', 'high', '', '0x1', '1e-1', 'NaN', 'Infinity']) {
      expect(parsePriority(bad), bad).toBeNull();
    }
  });
});
