import { z } from 'zod';

const MAX_ID = 2n ** 63n - 1n;

/** `GET /v1/audit` and `audit.list`: newest first, filtered by exact target and/or action. */
export const listAuditInput = z
  .object({
    /** e.g. a host name, a user's email, a token id. */
    target: z.string().min(1).max(512).optional(),
    /** e.g. `hosts.update`. */
    action: z
      .string()
      .regex(/^[A-Za-z]+\.[A-Za-z]+$/, 'an action such as hosts.update')
      .optional(),
    /** `next_cursor` of the previous page. */
    cursor: z
      .string()
      // One check: zod runs every refinement even after a failed one, and BigInt('x') throws.
      .refine(
        (c) => /^\d{1,19}$/.test(c) && BigInt(c) <= MAX_ID,
        'the next_cursor of a previous page',
      )
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
export type ListAuditInput = z.input<typeof listAuditInput>;
