/**
 * Small deterministic PRNG helpers. Everything random in the synthetic web derives from the seed
 * through {@link mix} and {@link Rng}; `Math.random` is never used.
 */

/** 32-bit integer hash of a sequence of numbers and strings (murmur3-style finaliser per part). */
export function mix(...parts: Array<number | string>): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    if (typeof part === 'number') {
      h = step(h, part | 0);
      h = step(h, Math.floor(part / 4294967296) | 0);
    } else {
      for (let i = 0; i < part.length; i++) h = step(h, part.charCodeAt(i));
      h = step(h, part.length);
    }
  }
  return fmix(h) >>> 0;
}

function step(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51);
  x = (x << 15) | (x >>> 17);
  x = Math.imul(x, 0x1b873593);
  let y = h ^ x;
  y = (y << 13) | (y >>> 19);
  return (Math.imul(y, 5) + 0xe6546b64) | 0;
}

function fmix(h0: number): number {
  let h = h0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** mulberry32 generator with a few convenience draws. */
export class Rng {
  private state: number;

  /** @param seed 32-bit seed, typically from {@link mix}. */
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from empty array');
    return item;
  }

  /** A new array with the items in random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = out[i] as T;
      out[i] = out[j] as T;
      out[j] = a;
    }
    return out;
  }
}
