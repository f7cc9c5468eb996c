import { canonicalizeUrl, type Manifest, type RequestLogEntry } from '@crawler/synthetic-web';

/** One host of the ceiling loop: its requests in order, at one request at a time. */
export interface CeilingHost {
  host: string;
  ip: string;
  /** `http` or `https`, from the manifest's seed of the host (the port is the ceiling web's). */
  scheme: 'http' | 'https';
  /** max(configured gap, the host's robots.txt Crawl-delay for our token), ms. */
  gapMs: number;
  /** Request-targets in order: the agent's own requests first, then what it did not reach. */
  targets: string[];
  /** How many of `targets` are the agent's. */
  agentRequests: number;
}

/** The two ceilings of a bench run. */
export type CeilingMode = 'fetch' | 'work';

/** What `agent-ceiling.ts` reads: the URLs and the politeness and limits the agent used. */
export interface CeilingPlan {
  /**
   * `fetch`: fetch and drop the body. `work`: also, for every response, the per-byte work an
   * archiving crawler cannot avoid (decode, SHA-256, gzip, one tokenizer pass) in worker threads.
   */
  mode: CeilingMode;
  /** A CA certificate (PEM) trusted besides Node's roots ('' for none). */
  caPem: string;
  port: number;
  /** The agent's lease ramp (AGENT_LEASE_RAMP_PER_S): hosts started per second. */
  rampPerS: number;
  userAgent: string;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  totalTimeoutMs: number;
  maxBodyBytes: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  robotsRetryBaseMs: number;
  hosts: CeilingHost[];
}

/**
 * The ceiling's URLs, per host: every request the agent made to it (robots.txt first, retries
 * and redirect hops included) in the agent's order, then the host's expected URLs the agent never
 * requested. Replaying only the agent's URLs would cap the ceiling at the agent's own count: a
 * faster crawler would have gone on to those remaining URLs within the same seconds.
 */
export function buildCeilingHosts(
  agentLog: RequestLogEntry[],
  manifest: Manifest,
  gapMs: number,
): CeilingHost[] {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const e of agentLog) {
    let list = byHost.get(e.host);
    if (!list) byHost.set(e.host, (list = []));
    list.push(e);
  }
  const expectedByHost = new Map<string, string[]>();
  for (const url of manifest.expected) {
    const u = new URL(url);
    let list = expectedByHost.get(u.hostname);
    if (!list) expectedByHost.set(u.hostname, (list = []));
    list.push(url);
  }
  const schemeOf = new Map<string, 'http' | 'https'>();
  for (const seed of manifest.seeds) {
    const u = new URL(seed);
    schemeOf.set(u.hostname, u.protocol === 'https:' ? 'https' : 'http');
  }
  return manifest.hosts.map((site) => {
    const requests = (byHost.get(site.host) ?? []).sort((a, b) => a.startMs - b.startMs);
    const targets = requests.map((e) => e.target);
    const seen = new Set(requests.map((e) => canonicalizeUrl(e.url)));
    if (targets.length === 0) targets.push('/robots.txt');
    for (const url of expectedByHost.get(site.host) ?? []) {
      if (seen.has(url)) continue;
      const u = new URL(url);
      targets.push(`${u.pathname}${u.search}`);
    }
    return {
      host: site.host,
      ip: site.ip,
      scheme: schemeOf.get(site.host) ?? 'http',
      gapMs: Math.max(gapMs, Math.round((site.crawlDelayS ?? 0) * 1000)),
      targets,
      agentRequests: requests.length,
    };
  });
}
