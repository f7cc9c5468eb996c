import type { Config } from '@crawler/domain/config';
import type { Frontier } from '@crawler/frontier';
import type { WarcWriter } from '@crawler/adapters/warc';
import type { WarcShipper } from '@crawler/adapters/storage';
import type { HttpClient } from './fetch/http-client';
import type { RobotsCache } from './robots/robots-cache';
import type { RedisRoom } from './lease/redis-room';
import type { TelemetrySink } from './telemetry/telemetry-sink';
import type { ContentIndex } from './dedupe/content-index';
import type { PagePublisher } from './feed/page-publisher';
import type { LivePolicies } from './policy/live-policies';
import type { LiveSettings } from './policy/live-settings';
import type { LiveBlockRules } from './policy/live-block-rules';
import type { EnqueueBatcher } from './frontier/enqueue-batcher';
import type { LoopLag } from './fetch/loop-lag';
import type { ParsePool } from './parse/parse-pool';
import type { Logger } from '@crawler/adapters/log';
import type { SitemapState } from './parse/sitemap-state';
import type { HostQualityTracker } from './quality/host-quality-tracker';
import type { LeaseKeeper } from './lease/lease-keeper';

/** What every part of the agent shares: built once in agent.ts, passed down. */
export interface AgentResources {
  config: Config;
  frontier: Frontier;
  /** Discovered links, enqueued in batches across pages. */
  links: EnqueueBatcher;
  http: HttpClient;
  /** The event loop's recent lag, taken off fetch times before the pacer's slow factor. */
  lag: LoopLag;
  robots: RobotsCache;
  warc: WarcWriter;
  /** Uploads each WARC file the writer closes to object storage. */
  shipper: WarcShipper;
  /** SHA-256 → first capture, shared by all agents: exact duplicates become WARC revisits. */
  content: ContentIndex;
  telemetry: TelemetrySink;
  /** Whether Redis has room for more (memory, telemetry backlog): leasing stops while not. */
  redisRoom: RedisRoom;
  /** The `pages.parsed` feed. */
  pages: PagePublisher;
  /** HTML parsing off the event loop. */
  parsePool: ParsePool;
  /** Host policies of the leases in hand, kept live by the frontier's policy channel. */
  policies: LivePolicies;
  /** Crawl settings operators change live (default gap, re-crawl share, User-Agent, depth). */
  settings: LiveSettings;
  /**
   * Operator block rules of the whole crawl (blocked hosts and domains, URL block patterns),
   * read every 2 s: links they match are dropped at enqueue, and `match(url, host)` says why.
   */
  blockRules: LiveBlockRules;
  /** Hosts' sitemap budgets and the standings of listed sitemaps, shared by all agents. */
  sitemaps: SitemapState;
  /** What the crawl learned about the hosts in hand (URL families, no-op parameters, soft 404s). */
  quality: HostQualityTracker;
  /** Renews the open leases and records their progress (URLs done) as they go. */
  leases: LeaseKeeper;
  log: Logger;
  /** Counters for heartbeats and the summary. */
  counters: AgentCounters;
  /**
   * Aborted when the agent stops: no request starts after it, waits for a host's turn end at
   * once, and every lease completes with its unstarted URLs back in the frontier.
   */
  stop: AbortSignal;
  /**
   * Aborted when a drain has waited AGENT_DRAIN_GRACE_MS for requests in flight: those still
   * running are abandoned, their URLs not done (back at the head of their hosts' queues).
   */
  cut: AbortSignal;
}

export interface AgentCounters {
  fetched: number;
  errors: number;
  bytes: number;
  robotsDenied: number;
  linksEnqueued: number;
  /**
   * Page requests the network guard refused (the host's address is private or invalid). A host
   * refused at its robots.txt is parked instead: the frontier dead-letters its URLs.
   */
  addressRefused: number;
  /** Discovered links kept out of the frontier by the trap rules (length, depth, repeats, hops). */
  trapRefused: number;
  /** Links dropped at enqueue by an operator block rule (a blocked host or a URL pattern). */
  blockRefused: number;
  /** URLs kept out by the crawl-quality rules (closed URL families, pagers, facets, soft 404s, duplicate budget). */
  qualityRefused: number;
  /** Soft-404 probes sent (one per host; requests, not pages of the crawl). */
  probes: number;
}

/** All zeros: an agent that has counted nothing yet. */
export function zeroCounters(): AgentCounters {
  return {
    fetched: 0,
    errors: 0,
    bytes: 0,
    robotsDenied: 0,
    linksEnqueued: 0,
    addressRefused: 0,
    trapRefused: 0,
    blockRefused: 0,
    qualityRefused: 0,
    probes: 0,
  };
}
