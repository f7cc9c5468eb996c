import { describe, expect, it } from 'vitest';
import { nextInterval } from './change-model';

const H = 3_600_000;
const bounds = { minMs: H, maxMs: 60 * 24 * H, initialMs: 24 * H };

describe('the re-crawl interval', () => {
  it('starts at the initial interval', () => {
    expect(nextInterval(undefined, 'new', bounds)).toBe(24 * H);
    expect(nextInterval(5 * H, 'new', bounds)).toBe(24 * H);
  });
  it('halves when the content changed and grows 1.5× when it did not', () => {
    expect(nextInterval(24 * H, 'changed', bounds)).toBe(12 * H);
    expect(nextInterval(24 * H, 'unchanged', bounds)).toBe(36 * H);
  });
  it('stays within [1 h, 60 d]', () => {
    expect(nextInterval(1.5 * H, 'changed', bounds)).toBe(H);
    expect(nextInterval(50 * 24 * H, 'unchanged', bounds)).toBe(60 * 24 * H);
    let i = 24 * H;
    for (let k = 0; k < 50; k++) i = nextInterval(i, 'changed', bounds);
    expect(i).toBe(H);
  });
});
