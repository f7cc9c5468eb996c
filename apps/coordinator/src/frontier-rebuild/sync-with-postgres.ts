import type { Frontier } from '@crawler/frontier';
import type { Config } from '@crawler/domain/config';
import type { RedisClient } from '@crawler/adapters/redis';
import type { Store } from '../db/store';
import { pushPolicy } from '../hosts/host-policy';
import { publishBlockRules } from '../hosts/publish-block-rules';
import { enqueueSeeds } from '../seeds/add-seeds';
import { publishSettings } from '../settings/crawl-settings';

/** Seeds read from Postgres per query. */
const SEEDS_PAGE = 5000;

export interface PostgresSyncDeps {
  config: Config;
  redis: RedisClient;
  frontier: Frontier;
  store: Store;
}

/**
 * Brings the frontier's policies in line with Postgres, the record (run at every coordinator
 * start, and first in a rebuild): the crawl settings in effect, every host policy (exact hosts
 * and `*.suffix` patterns), the block rules agents apply. Returns the policy rows pushed.
 */
export async function syncPoliciesWithPostgres(deps: PostgresSyncDeps): Promise<number> {
  const { store, frontier } = deps;
  await publishSettings(deps, await store.settings.get());
  const policies = await store.policies.listAll();
  for (const row of policies) await pushPolicy(store.policies, frontier, row);
  await publishBlockRules({ store, redis: deps.redis, prefix: deps.config.REDIS_PREFIX });
  return policies.length;
}

/**
 * Enqueues the seeds never enqueued (Redis was down when they were added): at every start of a
 * frontier that was not lost (a rebuild enqueues every seed instead, after marking what was
 * fetched as seen).
 */
export async function enqueuePendingSeeds(deps: { store: Store; frontier: Frontier }) {
  const { store, frontier } = deps;
  for (
    let batch = await store.seeds.listNotEnqueued(SEEDS_PAGE);
    batch.length > 0;
    batch = await store.seeds.listNotEnqueued(SEEDS_PAGE)
  ) {
    await enqueueSeeds({ seeds: store.seeds, frontier }, batch);
  }
}

/**
 * Enqueues every stored seed, enqueued before or not (a rebuild): seeds already fetched are in
 * the seen set by then and only set their host's priority class again. Returns the seeds read
 * and how many were new to the frontier.
 */
export async function restoreSeeds(deps: {
  store: Store;
  frontier: Frontier;
  signal?: AbortSignal;
}): Promise<{ seeds: number; enqueued: number }> {
  const out = { seeds: 0, enqueued: 0 };
  for (let after: bigint | undefined; ;) {
    deps.signal?.throwIfAborted();
    const batch = await deps.store.seeds.pageAll(after, SEEDS_PAGE);
    if (batch.length === 0) break;
    out.seeds += batch.length;
    out.enqueued += await enqueueSeeds({ seeds: deps.store.seeds, frontier: deps.frontier }, batch);
    after = batch[batch.length - 1]!.id;
    if (batch.length < SEEDS_PAGE) break;
  }
  return out;
}
