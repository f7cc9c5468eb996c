import { describe, expect, it } from 'vitest';
import { hammingDistance } from './hamming-distance';
import { EMPTY_SIMHASH, simhash64 } from './simhash64';

/** Deterministic PRNG (mulberry32) so the statistical checks never flake. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);

/** `n` words drawn with a skewed (roughly Zipf-like) frequency, like natural text. */
function words(next: () => number, n: number): string[] {
  return Array.from({ length: n }, () => VOCAB[Math.floor(next() * next() * VOCAB.length)]!);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

describe('simhash64', () => {
  it('is 16 hex chars, deterministic, and ignores case, punctuation and spacing', () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    expect(simhash64(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(simhash64(text)).toBe(simhash64(text));
    expect(simhash64('THE QUICK, brown fox -- jumps\n\tover the lazy dog!')).toBe(simhash64(text));
  });

  it('hashes a text without words to EMPTY_SIMHASH, and short texts to their words', () => {
    expect(simhash64('')).toBe(EMPTY_SIMHASH);
    expect(simhash64(' ... !!! ')).toBe(EMPTY_SIMHASH);
    expect(simhash64('hello')).not.toBe(EMPTY_SIMHASH);
    expect(simhash64('hello world')).not.toBe(simhash64('hello'));
  });

  it('weighs features by their count across many counting rounds', () => {
    // 600 identical shingles and one other: the majority is the repeated shingle's hash.
    const text = `${'a '.repeat(600)}b`;
    expect(simhash64(text)).toBe(simhash64('a a a'));
    expect(simhash64('a '.repeat(70_000))).toBe(simhash64('a a a'));
  });

  it('keeps word order (shingles), so a shuffled text is far away', () => {
    const w = words(rng(7), 500);
    const shuffled = [...w].sort();
    expect(hammingDistance(simhash64(w.join(' ')), simhash64(shuffled.join(' ')))).toBeGreaterThan(
      12,
    );
  });

  it('moves a 500-word text by a few bits when one word changes', () => {
    const next = rng(1);
    const distances: number[] = [];
    for (let trial = 0; trial < 100; trial++) {
      const w = words(next, 500);
      const before = simhash64(w.join(' '));
      w[Math.floor(next() * w.length)] = 'replacement';
      distances.push(hammingDistance(before, simhash64(w.join(' '))));
    }
    expect(median(distances)).toBeLessThanOrEqual(3);
    expect(distances.filter((d) => d <= 6).length).toBeGreaterThanOrEqual(90);
  });

  it('puts unrelated texts about 32 bits apart', () => {
    const next = rng(2);
    const distances: number[] = [];
    for (let trial = 0; trial < 100; trial++) {
      distances.push(
        hammingDistance(
          simhash64(words(next, 500).join(' ')),
          simhash64(words(next, 500).join(' ')),
        ),
      );
    }
    const mean = distances.reduce((a, b) => a + b, 0) / distances.length;
    expect(mean).toBeGreaterThan(29);
    expect(mean).toBeLessThan(35);
    expect(Math.min(...distances)).toBeGreaterThan(15);
  });

  it('tokenizes Chinese and Japanese per character, and other scripts per word', () => {
    const zh = '我们的网络爬虫遵守每个网站的抓取规则并且限制访问频率以免给服务器带来压力'.repeat(4);
    const zh2 = zh.slice(0, 40) + '猫' + zh.slice(41);
    expect(simhash64(zh)).not.toBe(EMPTY_SIMHASH);
    expect(hammingDistance(simhash64(zh), simhash64(zh2))).toBeLessThanOrEqual(8);
    expect(simhash64('Привет мир, это тест')).toBe(simhash64('привет МИР это тест'));
    expect(simhash64('naïve café résumé')).not.toBe(simhash64('naive cafe resume'));
  });

  it('hashes 80 KB of text well under a millisecond (figure logged)', () => {
    const text = words(rng(3), 20_000)
      .join(' ')
      .slice(0, 80 * 1024);
    const reps = 20;
    let best = Infinity;
    for (let batch = 0; batch < 15; batch++) {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) simhash64(text);
      best = Math.min(best, (performance.now() - t0) / reps);
    }
    console.log(`simhash64: ${Math.round(best * 1000)} µs per 80 KB of text (best batch)`);
    // Generous bound: shared CI machines are slow and noisy; the figure is what matters.
    expect(best).toBeLessThan(10);
  });
});
