import { isSitemapUrl } from '@crawler/domain/sitemaps';
import { frontierEntry } from '@crawler/domain/url';
import type { Frontier } from '@crawler/frontier';
import type { NewSeed, SeedRepository } from '../db/seed-repository';
import type { Store } from '../db/store';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { AddSeedsInput, AddSeedsOutput } from './add-seeds.types';
import { addSeedsInput } from './add-seeds.types';

/** URLs an audit entry lists at most (the counts are always complete). */
const AUDIT_MAX_URLS = 100;

/**
 * Adds seeds: each URL is normalized on its own, so one bad entry never blocks the others.
 * Valid seeds are stored in Postgres first (the record that must never be lost), with their
 * audit entry in the same transaction, then put in the frontier, then marked enqueued; a seed
 * whose enqueue failed is retried at the next start. Seeds flagged `sitemap` go in as sitemap
 * documents (the agent expands them instead of crawling them as pages); seeds whose URL names
 * a sitemap are expanded by the agent anyway, and are counted with them in `sitemaps`.
 */
export async function addSeeds(
  deps: { store: Store; frontier: Frontier },
  actor: Actor,
  raw: AddSeedsInput,
  source: string,
): Promise<AddSeedsOutput> {
  const input = addSeedsInput.parse(raw);
  const rejected: AddSeedsOutput['rejected'] = [];
  const valid = new Map<string, NewSeed>();
  input.urls.forEach((url, index) => {
    const n = frontierEntry(url.trim());
    if (!n.ok) rejected.push({ index, url, reason: n.reason, detail: n.detail });
    else valid.set(n.entry.urlFp, { ...n.entry, priority: input.priority, source });
  });
  const seeds = [...valid.values()];
  const list = input.list ?? null;
  if (seeds.length === 0) return { valid: 0, added: 0, enqueued: 0, list, sitemaps: 0, rejected };
  const sitemaps = input.sitemap ? seeds.length : seeds.filter((x) => isSitemapUrl(x.url)).length;
  const added = await deps.store.transaction(async (r) => {
    const n = await r.seeds.insertMany(seeds);
    if (list !== null)
      await r.seeds.addToList(
        list,
        seeds.map((x) => x.urlFp),
      );
    const hosts = new Set(seeds.map((x) => x.host));
    await r.audit.record(
      auditEntry(actor, 'seeds.add', hosts.size === 1 ? seeds[0]!.host : null, null, {
        priority: input.priority,
        list,
        sitemap: input.sitemap,
        sitemaps,
        valid: seeds.length,
        added: n,
        rejected: rejected.length,
        hosts: hosts.size,
        urls: seeds.slice(0, AUDIT_MAX_URLS).map((x) => x.url),
      }),
    );
    return n;
  });
  const enqueued = await enqueueSeeds(
    { seeds: deps.store.seeds, frontier: deps.frontier },
    seeds,
    input.sitemap,
  );
  return { valid: seeds.length, added, enqueued, list, sitemaps, rejected };
}

/**
 * Puts stored seeds into the frontier and marks them enqueued. Returns how many were new there.
 * Every seed sets its host's priority class from its priority. `asSitemaps`: seeds whose URL
 * does not name a sitemap go in as sitemap documents (`sitemap-file`: the agent expands them
 * whatever their body looks like); the rest stay seeds (the agent expands a seed whose URL or
 * body says it is a sitemap). The flag is not stored: a flagged seed enqueued only at a later
 * start is a plain seed.
 */
export async function enqueueSeeds(
  deps: { seeds: SeedRepository; frontier: Frontier },
  seeds: NewSeed[],
  asSitemaps = false,
): Promise<number> {
  if (seeds.length === 0) return 0;
  const { accepted } = await deps.frontier.enqueue(
    seeds.map((s) => ({
      url: s.url,
      urlFp: s.urlFp,
      host: s.host,
      depth: 0,
      priority: s.priority,
      source: asSitemaps && !isSitemapUrl(s.url) ? ('sitemap-file' as const) : ('seed' as const),
    })),
    { seeds: true },
  );
  await deps.seeds.markEnqueued(seeds.map((s) => s.urlFp));
  return accepted;
}
