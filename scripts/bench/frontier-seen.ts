import { randomBytes } from 'node:crypto';
import { Frontier } from '@crawler/frontier';
import { deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';

/** url_fps per markSeen / seenBatch call. */
const CHUNK = 5000;
/** How far past its sizing the filter is filled for the measurement. */
const FILL_FACTOR = 10;

/** `n` distinct random url_fps (64 bits each), none in `not`. */
function randomFps(n: number, not?: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    const fp = randomBytes(8).toString('hex');
    if (!not?.has(fp)) out.add(fp);
  }
  return [...out];
}

/**
 * The seen set's false-positive rate at 10× its sizing (issue 15: `seen_fp_rate` ≤ 2 ×
 * `seen_fp_target`): a dedicated one-shard frontier sized like one shard of the bench's
 * (`urls / shards` URLs, 10 bits and 7 hashes, the default target) is filled with 10× that many
 * random url_fps through markSeen — the seen-set code every add runs (includes/seen-set.lua) —
 * then `probes` url_fps never added are looked up. The rate is the Bloom filter's alone: the
 * coordinator's confirmation against the URL table (apps/coordinator/src/seen-confirm) needs
 * ClickHouse and agents, which this bench does not run.
 */
export async function measureSeenFalsePositives(
  redis: RedisClient,
  opts: { prefix: string; urls: number; shards: number; probes?: number },
): Promise<Record<string, number>> {
  const sizing = Math.max(1000, Math.ceil(opts.urls / opts.shards));
  const prefix = `${opts.prefix}-seen`;
  const f = new Frontier(redis, {
    prefix,
    shards: 1,
    seen: { mode: 'bloom', expectedUrls: sizing, bitsPerUrl: 10, hashes: 7 },
  });
  const host = 'seen.bench';
  const entries = (fps: readonly string[]) => fps.map((urlFp) => ({ urlFp, host }));
  try {
    const added = new Set<string>();
    const t0 = performance.now();
    for (let i = 0; i < FILL_FACTOR * sizing; i += CHUNK) {
      const fps = randomFps(Math.min(CHUNK, FILL_FACTOR * sizing - i), added);
      for (const fp of fps) added.add(fp);
      await f.markSeen(entries(fps));
    }
    const fillS = (performance.now() - t0) / 1000;
    const probes = randomFps(Math.max(100_000, opts.probes ?? 0), added);
    let positives = 0;
    for (let i = 0; i < probes.length; i += CHUNK)
      positives += (await f.seenBatch(entries(probes.slice(i, i + CHUNK)))).filter(Boolean).length;
    const layers = await f.urls.seenSet.layers(0);
    return {
      seen_fp_rate: Number((positives / probes.length).toFixed(5)),
      seen_fp_target: Number(f.urls.seenSet.fpTarget.toFixed(5)),
      seen_fp_expected: Number((await f.urls.seenSet.falsePositiveRate()).toFixed(5)),
      seen_fp_probes: probes.length,
      seen_fill_urls: added.size,
      seen_sizing_urls: sizing,
      seen_layers: layers.length,
      seen_bytes_per_url: Number(
        (layers.reduce((a, l) => a + l.bits / 8, 0) / added.size).toFixed(2),
      ),
      seen_add_per_s: Math.round(added.size / fillS),
    };
  } finally {
    await deleteKeysWithPrefix(redis, prefix);
  }
}
