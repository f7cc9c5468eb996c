import { z } from 'zod';

/** A URL as it sits in a host's queue (JSON in Redis, validated when read back). */
export const queueEntrySchema = z.object({
  /** normalized URL */
  u: z.string().min(1),
  /** url_fp (16 hex chars) */
  f: z.string().regex(/^[0-9a-f]{16}$/),
  /** depth: hops from a seed */
  d: z.number().int().min(0),
  /** redirects followed to reach this URL */
  r: z.number().int().min(0).default(0),
  /** priority tier (0 = highest) */
  p: z.number().int().min(0).max(9).default(1),
  /** where it came from: seed, link, redirect, sitemap */
  s: z.enum(['seed', 'link', 'redirect', 'sitemap', 'recrawl']).default('link'),
});
export type QueueEntry = z.infer<typeof queueEntrySchema>;

/** Input of `Frontier.enqueue`. */
export interface EnqueueUrl {
  url: string;
  urlFp: string;
  host: string;
  depth: number;
  priority?: number;
  redirects?: number;
  source?: QueueEntry['s'];
}

export interface LeasedUrl {
  url: string;
  urlFp: string;
  depth: number;
  redirects: number;
  source: QueueEntry['s'];
}

/** One host handed to one agent for a while: fetch its URLs one at a time, spaced by gapMs. */
export interface HostLease {
  leaseId: string;
  shard: number;
  host: string;
  /** How long the lease lasts from the moment it was granted (ms). */
  leaseMs: number;
  /** The host's configured gap between requests (ms), before robots Crawl-delay and slowness. */
  gapMs: number;
  urls: LeasedUrl[];
}

export interface FrontierStats {
  shards: number;
  hosts: number;
  queuedUrls: number;
  seenUrls: number;
  readyHosts: number;
  scheduledHosts: number;
  openLeases: number;
  deadLetters: number;
  processedUrls: number;
}

/** How a lease ended. `processed` counts a prefix of the batch; the rest goes back. */
export interface LeaseOutcome {
  processed: number;
  /** Delay until the host's next request (ms), e.g. max(crawl delay, 1/rate, 10 × fetch time). */
  delayMs: number;
  /** The host's current pace (ms between requests), used to size its next batch. */
  paceMs: number;
  /** Park the host: its remaining URLs go to dead letters with this reason. */
  parkReason?: string;
}
