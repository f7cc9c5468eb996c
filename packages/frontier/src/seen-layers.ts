/**
 * The seen set's scalable Bloom filter (Almeida et al., "Scalable Bloom Filters", 2007), in
 * numbers: each shard's filter is a series of layers, layer i taking c_i URLs at most at a
 * false-positive rate of at most P·(1 − r)·rⁱ, so that the rate over all layers — a lookup is
 * positive when any layer is — stays under Σ P·(1 − r)·rⁱ = P however many layers open. The
 * scripts do the same arithmetic (commands/includes/seen-set.lua, deliberately repeated there:
 * a layer opens inside a script) and record each layer's geometry in `<seen>:meta` when it opens.
 */

/** Each layer's false-positive bound is this share of the one before (Almeida's r). */
export const SEEN_RATIO = 0.5;
/** Each layer takes this many times the URLs of the one before (Almeida's s). */
export const SEEN_GROWTH = 2;
/** Bits of one layer at most: BITFIELD offsets stop at 2³² − 1 (a 512 MB string). */
export const MAX_LAYER_BITS = 2 ** 32 - 1;

/** One layer of a shard's filter: its bits, hash count, capacity and the URLs it holds. */
export interface SeenLayer {
  bits: number;
  hashes: number;
  capacity: number;
  urls: number;
}

/** False-positive rate of a Bloom filter of m bits and k hashes holding n items. */
export function bloomFalsePositiveRate(n: number, m: number, k: number): number {
  return (1 - Math.exp((-k * n) / m)) ** k;
}

/** Items m bits with k hashes hold before their false-positive rate passes p (at least 1). */
export function bloomCapacity(m: number, k: number, p: number): number {
  return Math.max(1, Math.floor(-(m / k) * Math.log(1 - p ** (1 / k))));
}

/** Bits that hold n items with k hashes at a false-positive rate of p. */
export function bloomBits(n: number, k: number, p: number): number {
  return Math.ceil((-k * n) / Math.log(1 - p ** (1 / k)));
}

/**
 * The default target: twice the configured geometry's rate at its sizing (10 bits, 7 hashes:
 * 2 × 0.82%). Layer 0 is allowed half the target, so it is exactly the configured filter — the
 * same memory and the same rate as a single filter up to `FRONTIER_EXPECTED_URLS` — and the
 * layers opened past the sizing add at most as much again.
 */
export function defaultSeenFpTarget(bitsPerUrl: number, hashes: number): number {
  return 2 * bloomFalsePositiveRate(1, bitsPerUrl, hashes);
}

/** The false-positive bound of layer i under target P. */
export function layerFpBound(target: number, i: number): number {
  return target * (1 - SEEN_RATIO) * SEEN_RATIO ** i;
}

/**
 * Layer i ≥ 1 of a shard whose layer 0 takes `capacity0` URLs: SEEN_GROWTHⁱ times as many, with
 * layer 0's hash count (the scripts' fast path) and the bits its tighter bound needs — or, past
 * MAX_LAYER_BITS, the most URLs that many bits hold at that bound.
 */
export function seenLayer(
  i: number,
  layer0: { capacity: number; hashes: number },
  target: number,
): Omit<SeenLayer, 'urls'> {
  const k = layer0.hashes;
  const p = layerFpBound(target, i);
  const capacity = layer0.capacity * SEEN_GROWTH ** i;
  const bits = bloomBits(capacity, k, p);
  if (bits <= MAX_LAYER_BITS) return { bits, hashes: k, capacity };
  return { bits: MAX_LAYER_BITS, hashes: k, capacity: bloomCapacity(MAX_LAYER_BITS, k, p) };
}

/**
 * A shard's layers from its `<seen>:meta` hash. Empty (no add since layers existed): layer 0
 * alone, as configured, holding `layer0.urls` (the caller's best guess; the first add counts).
 */
export function seenLayersOf(meta: Record<string, string>, layer0: SeenLayer): SeenLayer[] {
  const layers = Number(meta.layers ?? 0);
  if (!layers) return [layer0];
  return Array.from({ length: layers }, (_, i) => ({
    bits: Number(meta[`m${i}`] ?? layer0.bits),
    hashes: Number(meta[`k${i}`] ?? layer0.hashes),
    capacity: Number(meta[`c${i}`] ?? layer0.capacity),
    urls: Number(meta[`n${i}`] ?? 0),
  }));
}

/** Expected false-positive rate of a lookup over every layer (positive when any layer is). */
export function seenFalsePositiveRate(layers: readonly SeenLayer[]): number {
  return (
    1 - layers.reduce((miss, l) => miss * (1 - bloomFalsePositiveRate(l.urls, l.bits, l.hashes)), 1)
  );
}

/** The seen set's options (FrontierOptions.seen). */
export interface SeenOptions {
  /** 'bloom' (scalable Bloom filters) or 'set' (exact). */
  mode: 'bloom' | 'set';
  /**
   * URLs layer 0 is sized for, all shards together (default 10M), at `bitsPerUrl` (10) with
   * `hashes` (7): layer 0's geometry, fixed per installation like the shard count.
   */
  expectedUrls?: number;
  bitsPerUrl?: number;
  hashes?: number;
  /**
   * False-positive rate the whole seen set stays under, however many URLs it takes (default: the
   * geometry's rate at its sizing, 0.82% for 10 bits and 7 hashes). Layer 0 takes the URLs that
   * keep it at half of this; it may change between runs (it applies to the layers opened after).
   */
  fpTarget?: number;
  /**
   * Maybe-seen discoveries noted per shard for the coordinator to confirm against the URL table
   * (default 0: none; FRONTIER_SEEN_CONFIRM_MAX / shards in a crawl).
   */
  confirmMax?: number;
}

/** The seen set's layout: mode, layer 0's geometry per shard, the target, the script spec. */
export interface SeenLayout {
  mode: 'bloom' | 'set';
  /** Layer 0's bits per shard (at most MAX_LAYER_BITS) and hash count. */
  bloomBits: number;
  bloomHashes: number;
  /** URLs layer 0 of a shard takes before the next layer opens. */
  layer0Capacity: number;
  fpTarget: number;
  /** Maybe-seen candidates noted per shard at most (0: none). */
  confirmMax: number;
  /** What the scripts take (`m:k:c:p`, includes/seen-set.lua). */
  spec: string;
}

/** The layout of a seen set of `shards` shards. */
export function seenLayout(opts: SeenOptions | undefined, shards: number): SeenLayout {
  const o = opts ?? { mode: 'bloom' };
  const bitsPerUrl = o.bitsPerUrl ?? 10;
  const hashes = o.hashes ?? 7;
  const fpTarget = o.fpTarget ?? defaultSeenFpTarget(bitsPerUrl, hashes);
  if (!(fpTarget > 0 && fpTarget < 1)) throw new RangeError(`seen fpTarget ${fpTarget}: 0 < p < 1`);
  const bloomBits = Math.min(
    MAX_LAYER_BITS,
    Math.ceil(((o.expectedUrls ?? 10_000_000) * bitsPerUrl) / shards),
  );
  const layer0Capacity = bloomCapacity(bloomBits, hashes, layerFpBound(fpTarget, 0));
  return {
    mode: o.mode,
    bloomBits,
    bloomHashes: hashes,
    layer0Capacity,
    fpTarget,
    confirmMax: o.mode === 'bloom' ? Math.max(0, Math.floor(o.confirmMax ?? 0)) : 0,
    spec: `${bloomBits}:${hashes}:${layer0Capacity}:${fpTarget}`,
  };
}
