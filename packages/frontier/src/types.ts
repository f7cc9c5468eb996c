/**
 * Where a URL came from; stored as one letter in its queue entry. `sitemap` = a page listed in a
 * sitemap; `sitemap-file` = a sitemap document itself (from robots.txt or a sitemap index).
 */
export type UrlSource = 'seed' | 'link' | 'redirect' | 'sitemap' | 'sitemap-file' | 'recrawl';

/** Input of `Frontier.enqueue`. */
export interface EnqueueUrl {
  url: string;
  urlFp: string;
  host: string;
  depth: number;
  /**
   * Priority 0 (highest) to 9, an integer; default 1. It is the URL's tier in its host's queue:
   * a host's URLs come out in tier order, lower tiers still getting their weight's share of each
   * batch (FRONTIER_TIER_WEIGHTS). A seed's priority also sets its host's priority class. Out of
   * range: enqueue throws FrontierInputError (code FRONTIER_BAD_INPUT) and writes nothing.
   * Ignored for re-crawls, which have their own queue.
   */
  priority?: number;
  redirects?: number;
  /**
   * Internal hops since the last page linked from another host (or a seed / sitemap entry): 0 for
   * those, +1 per same-host link. Travels with the entry (trap rule: at most 3).
   */
  hops?: number;
  /** `recrawl` bypasses the seen set (the URL is known) and goes to the host's re-crawl queue. */
  source?: UrlSource;
  /**
   * For a `link`: the host of the page it was found on. A link from another site (see
   * `siteOf`: last two labels) counts toward the linked host's priority class, once per
   * referring site, whether or not the URL itself is new; links within a site, and other
   * sources, never raise a host.
   */
  fromHost?: string;
  /** What the last capture left: validators for a conditional GET and the record to refer to. */
  prior?: PriorCapture;
}

/**
 * The previous capture of a URL, carried by its re-crawl entry: the validators make the fetch a
 * conditional GET, and a 304 or an unchanged body becomes a WARC revisit referring to it.
 */
export interface PriorCapture {
  etag?: string;
  lastModified?: string;
  /** WARC-Record-ID of the earlier response record, with angle brackets. */
  recordId?: string;
  /** When it was captured (epoch ms): WARC-Refers-To-Date. */
  capturedAt?: number;
  /** WARC-Payload-Digest of the earlier capture (`sha1:` base32). */
  payloadDigest?: string;
  /** SHA-256 (hex) of the earlier body: an identical body is "unchanged" even without a 304. */
  sha256?: string;
}

/** A host's queue: one per URL priority, '0' (highest) to '9', and 'r' for re-crawls. */
export type QueueTier = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | 'r';

export interface LeasedUrl {
  url: string;
  urlFp: string;
  depth: number;
  redirects: number;
  source: UrlSource;
  /** Internal hops since the last page linked from another host (see {@link EnqueueUrl.hops}). */
  hops: number;
  /** Tier it was queued in: its priority 0–9, or 'r' for a re-crawl. */
  tier: QueueTier;
  /** Earlier failed attempts. */
  attempts: number;
  prior?: PriorCapture;
}

/** One host handed to one agent for a while: fetch its URLs one at a time, spaced by gapMs. */
export interface HostLease {
  leaseId: string;
  shard: number;
  host: string;
  /** Longest the agent may work the lease from the moment it was granted (ms). */
  leaseMs: number;
  /**
   * How long the lease lives from the moment it was granted, and from each renewal, unless the
   * agent renews it (ms): the agent starts no request that could end past it.
   */
  ttlMs: number;
  /** The host's configured gap between requests (ms), before robots Crawl-delay and slowness. */
  gapMs: number;
  /**
   * Connections the agent may open to the host at once: 1 by default (one request at a time);
   * more only where an operator set it. Request starts stay spaced by gapMs either way.
   */
  maxConnections: number;
  /** The host's IP as last connected, if known. */
  ip: string | null;
  urls: LeasedUrl[];
}

/** An open lease, for the console: who holds which host until when. */
export interface OpenLease {
  leaseId: string;
  shard: number;
  host: string;
  agentId: string;
  /** When the lease expires unless renewed (ms since the epoch, Redis time). */
  deadlineMs: number;
}

export interface FrontierStats {
  shards: number;
  hosts: number;
  /** URLs waiting: in the hosts' heads in Redis and spilled (spilledUrls included). */
  queuedUrls: number;
  /** Of queuedUrls, those spilled out of the heads (overflow list and Postgres; spill.ts). */
  spilledUrls: number;
  /** URLs in the seen set (exact mode: its size; Bloom: URLs accepted). */
  seenUrls: number;
  /** Bytes of the Bloom filters. */
  seenBytes: number;
  /**
   * The Bloom filters' false-positive rate at their current fill, (1 − e^(−kn/m))^k averaged over
   * shards: the share of new URLs that would be skipped as seen. 0 in exact mode.
   */
  seenFalsePositiveRate: number;
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
  /** The IP address connected, remembered for per-IP politeness. */
  ip?: string | null;
}

/** A lease that ended at a failed URL. */
export interface LeaseFailure {
  /** Index of the failed URL in the batch; the ones before it are done. */
  index: number;
  /** Stable error code (timeout, 5xx, 429, …). */
  error: string;
  /** The server's Retry-After, if any (ms). */
  retryAfterMs?: number;
  ip?: string | null;
}

export interface DeadLetter {
  host: string;
  reason: string;
  url: string;
  attempts: number;
  at: number;
}

/**
 * What orders a host among due hosts (commands/includes/host-class.lua): its class, from 0
 * (leased first) to 9, and what made it.
 */
export interface HostPriority {
  hostClass: number;
  /** Best priority of the seeds enqueued for the host; null when none was. */
  seedPriority: number | null;
  /** Other sites counted as linking to it (at most 8: 2, 4 and 8 raise it by 1, 2, 3 classes). */
  inLinkSites: number;
  /** Classes taken off by demoteHost. */
  demoted: number;
  /** The last reason given to demoteHost, or null. */
  demoteReason: string | null;
}

/** A host's live policy as agents apply it, and as announced on the policy channel. */
export type { HostPolicyNotice } from '@crawler/domain/messages';

/**
 * A domain-suffix policy as copied into the shards: each field null leaves it to the host's own
 * policy or the crawl default.
 */
export interface SuffixPolicy {
  gapMs: number | null;
  blocked: boolean | null;
  dailyBudget: number | null;
  allowlisted: boolean | null;
  maxConnections: number | null;
}
