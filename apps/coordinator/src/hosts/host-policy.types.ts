import { z } from 'zod';

/**
 * `PUT /v1/hosts/{host}` and `hosts.update`: an operator's policy for one host or, when the
 * host is written `*.example.com`, for example.com and every host under it. Each field given is
 * set; null clears it (the host falls back to a pattern, then to the crawl default).
 */
export const hostPolicyPatch = z
  .object({
    /** Requests per second (0.001–1000). */
    rate_limit_rps: z.number().positive().max(1000).nullable().optional(),
    /** Blocked hosts are not fetched; their queue is kept and restored when unblocked. */
    blocked: z.boolean().nullable().optional(),
    /** Pages per UTC day; 0 = unlimited. */
    daily_budget: z.number().int().min(0).max(100_000_000).nullable().optional(),
    /** Allowlisted hosts have no daily budget. */
    allowlisted: z.boolean().nullable().optional(),
    /**
     * Connections an agent may open to the host at once (1–16; default 1). Request starts stay
     * spaced by the rate limit: more connections help only hosts slower than their limit.
     */
    max_connections: z.number().int().min(1).max(16).nullable().optional(),
  })
  .strict()
  .refine(
    (p) => Object.values(p).some((v) => v !== undefined),
    'give at least one of rate_limit_rps, blocked, daily_budget, allowlisted, max_connections',
  );
export type HostPolicyPatch = z.infer<typeof hostPolicyPatch>;

export const hostName = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^(\*\.)?[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i,
    'a host name such as example.com, or *.example.com for a domain and its subdomains (no scheme, port or path)',
  );

/** A stored policy as the API shows it (PUT's answer, and the patterns of a host). */
export const hostPolicyView = z.object({
  /** The host, or the pattern `*.example.com`. */
  host: z.string(),
  kind: z.enum(['host', 'suffix']),
  rate_limit_rps: z.number().nullable(),
  blocked: z.boolean().nullable(),
  daily_budget: z.number().int().nullable(),
  allowlisted: z.boolean().nullable(),
  max_connections: z.number().int().nullable(),
  updated_at: z.string(),
  /** PUT only: hosts the frontier knows whose policy was rewritten (1 for a host). */
  hosts_updated: z.number().int().optional(),
});
export type HostPolicyView = z.infer<typeof hostPolicyView>;

/** A host's policy in `GET /v1/hosts/{host}`: what is set on it, and what applies. */
export const hostPolicyState = z.object({
  /** Set on this host (null: not set here). */
  rate_limit_rps: z.number().nullable(),
  daily_budget: z.number().int().nullable(),
  allowlisted: z.boolean().nullable(),
  max_connections: z.number().int().nullable(),
  /** In effect: the host's own setting, else a pattern's, else not blocked. */
  blocked: z.boolean(),
  effective_gap_ms: z.number(),
  /** Pages per UTC day in effect; 0 = unlimited (allowlisted or set so). */
  effective_daily_budget: z.number().int(),
  effective_max_connections: z.number().int(),
  /** Patterns that cover the host, longest first. */
  patterns: z.array(z.string()),
});
