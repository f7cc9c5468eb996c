import { z } from 'zod';
import { seedListName } from './add-seeds.types';

/** `GET /v1/seeds` and `seeds.list`: seeds in the order they were added, of one list or all. */
export const listSeedsInput = z
  .object({
    list: seedListName.optional(),
    /** `next_cursor` of the previous page. */
    cursor: z
      .string()
      .regex(/^\d{1,19}$/, 'a next_cursor from the previous page')
      .optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

export const seedView = z.object({
  url: z.string(),
  host: z.string(),
  priority: z.number().int(),
  /** How it was added: api, cli, console. */
  source: z.string(),
  added_at: z.string(),
  /** When it reached the frontier; null until it has (retried at start-up). */
  enqueued_at: z.string().nullable(),
  lists: z.array(z.string()),
});

export const listSeedsOutput = z.object({
  items: z.array(seedView),
  next_cursor: z.string().nullable(),
});

/** `GET /v1/seed-lists` and `seeds.lists`: seed lists by name. */
export const listSeedListsInput = z
  .object({
    cursor: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

export const listSeedListsOutput = z.object({
  items: z.array(z.object({ name: z.string(), seeds: z.number().int(), created_at: z.string() })),
  next_cursor: z.string().nullable(),
});
