import { z } from 'zod';

/** `PUT /v1/hosts/{host}` and `hosts.update`: an operator's policy for one host. */
export const hostPolicyPatch = z
  .object({
    /** Requests per second (0.001–1000); null returns the host to the crawl default. */
    rate_limit_rps: z.number().positive().max(1000).nullable().optional(),
    /** Blocked hosts are not fetched; their queue is kept and restored when unblocked. */
    blocked: z.boolean().optional(),
  })
  .strict()
  .refine(
    (p) => p.rate_limit_rps !== undefined || p.blocked !== undefined,
    'give rate_limit_rps or blocked',
  );
export type HostPolicyPatch = z.infer<typeof hostPolicyPatch>;

export const hostName = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i,
    'a host name such as example.com (no scheme, port or path)',
  );
