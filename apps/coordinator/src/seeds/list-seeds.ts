import type { Store } from '../db/store';
import { listSeedListsInput, listSeedsInput } from './list-seeds.types';

/** `GET /v1/seeds`: stored seeds, oldest first, of one list or all. */
export async function listSeeds(deps: { store: Store }, raw: unknown) {
  const input = listSeedsInput.parse(raw);
  const rows = await deps.store.seeds.page({
    ...(input.list !== undefined ? { list: input.list } : {}),
    ...(input.cursor !== undefined ? { afterId: BigInt(input.cursor) } : {}),
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  return {
    items: page.map((r) => ({
      url: r.url,
      host: r.host,
      priority: r.priority,
      source: r.source,
      added_at: r.createdAt.toISOString(),
      enqueued_at: r.enqueuedAt?.toISOString() ?? null,
      lists: r.lists,
    })),
    next_cursor: rows.length > input.limit ? String(page[page.length - 1]!.id) : null,
  };
}

/** `GET /v1/seed-lists`: seed lists by name, with their sizes. */
export async function listSeedLists(deps: { store: Store }, raw: unknown) {
  const input = listSeedListsInput.parse(raw);
  const rows = await deps.store.seeds.lists(input.cursor, input.limit + 1);
  const page = rows.slice(0, input.limit);
  return {
    items: page.map((r) => ({
      name: r.name,
      seeds: r.seeds,
      created_at: r.createdAt.toISOString(),
    })),
    next_cursor: rows.length > input.limit ? page[page.length - 1]!.name : null,
  };
}
