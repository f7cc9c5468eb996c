import { normalizeUrl, urlFingerprint, hostOf } from '@crawler/shared/url';
import type { Frontier } from '@crawler/frontier';
import type { NewSeed, SeedRepository } from '../db/seed-repository';
import type { AddSeedsInput, AddSeedsOutput } from './add-seeds.types';
import { addSeedsInput } from './add-seeds.types';

/**
 * Adds seeds: each URL is normalized on its own, so one bad entry never blocks the others.
 * Valid seeds are stored in Postgres first (the record that must never be lost), then put in the
 * frontier, then marked enqueued; a seed whose enqueue failed is retried at the next start.
 */
export async function addSeeds(
  deps: { seeds: SeedRepository; frontier: Frontier },
  raw: AddSeedsInput,
  source: string,
): Promise<AddSeedsOutput> {
  const input = addSeedsInput.parse(raw);
  const rejected: AddSeedsOutput['rejected'] = [];
  const valid = new Map<string, NewSeed>();
  input.urls.forEach((url, index) => {
    const n = normalizeUrl(url.trim());
    if (!n.ok) rejected.push({ index, url, reason: n.reason, detail: n.detail });
    else {
      const urlFp = urlFingerprint(n.url);
      valid.set(urlFp, {
        url: n.url,
        urlFp,
        host: hostOf(n.url),
        priority: input.priority,
        source,
      });
    }
  });
  const seeds = [...valid.values()];
  const added = await deps.seeds.insertMany(seeds);
  const enqueued = await enqueueSeeds(deps, seeds);
  return { valid: seeds.length, added, enqueued, rejected };
}

/** Puts stored seeds into the frontier and marks them enqueued. Returns how many were new there. */
export async function enqueueSeeds(
  deps: { seeds: SeedRepository; frontier: Frontier },
  seeds: NewSeed[],
): Promise<number> {
  if (seeds.length === 0) return 0;
  const { accepted } = await deps.frontier.enqueue(
    seeds.map((s) => ({
      url: s.url,
      urlFp: s.urlFp,
      host: s.host,
      depth: 0,
      priority: s.priority,
      source: 'seed' as const,
    })),
  );
  await deps.seeds.markEnqueued(seeds.map((s) => s.urlFp));
  return accepted;
}
