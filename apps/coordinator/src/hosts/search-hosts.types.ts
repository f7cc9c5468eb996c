import { z } from 'zod';

/** `GET /v1/hosts` and `hosts.list`: hosts by name, ascending, `q` a substring. */
export const searchHostsInput = z
  .object({
    q: z.string().max(253).default(''),
    /** `next_cursor` of the previous page (the last host shown). */
    cursor: z.string().min(1).max(253).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();

export const hostListItem = z.object({
  host: z.string(),
  /** Fetch attempts recorded in ClickHouse (robots.txt refusals excluded). */
  fetches: z.number().int(),
  last_fetch_at: z.string().nullable(),
  /** Attempts without an HTTP answer or with a 5xx. */
  errors: z.number().int(),
  blocked: z.boolean(),
  rate_limit_rps: z.number().nullable(),
});

export const searchHostsOutput = z.object({
  items: z.array(hostListItem),
  next_cursor: z.string().nullable(),
});
export type HostListItem = z.infer<typeof hostListItem>;
