/**
 * The ceiling of `npm run bench -- agent`: a bare undici loop over the agent's URLs with the
 * agent's politeness and nothing else — no robots parsing, no HTML parsing, no hashes, no WARC,
 * no telemetry, no Redis. Run as a child (`node --import tsx scripts/bench/agent-ceiling.ts
 * PLAN.json`); it fetches until SIGTERM, then prints one JSON line of counts and exits.
 *
 * Politeness, as the agent's HostPacer and frontier apply it: per host one keep-alive connection
 * and one request at a time; the next starts `max(gap, Crawl-delay, min(30 s, 10 × fetch time))`
 * after the previous ended; after a 429/5xx/timeout/network error the host also waits
 * `max(Retry-After, min(cap, base × 2^(errors−1)))`; after a 5xx robots.txt it waits the robots
 * retry delay.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { CeilingHost, CeilingPlan } from './ceiling-plan';

const plan = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as CeilingPlan;
const ips = new Map(plan.hosts.map((h) => [h.host, h.ip]));
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

const lookup: LookupFunction = (hostname, options, callback) => {
  const ip = ips.get(hostname);
  if (!ip) return callback(new Error(`unknown host ${hostname}`), '', 4);
  if ((options as { all?: boolean }).all)
    (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(
      null,
      [{ address: ip, family: 4 }],
    );
  else callback(null, ip, 4);
};
// The agent's dispatcher settings: one connection per origin, no pipelining, same limits.
const dispatcher = new Agent({
  connections: 1,
  pipelining: 1,
  keepAliveTimeout: 30_000,
  connectTimeout: plan.connectTimeoutMs,
  headersTimeout: plan.firstByteTimeoutMs,
  bodyTimeout: plan.firstByteTimeoutMs,
  maxHeaderSize: 64 * 1024,
  connect: { lookup, timeout: plan.connectTimeoutMs },
});
// The agent's request headers, so the web does the same work and sends the same bytes.
const headers = {
  'User-Agent': plan.userAgent,
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Encoding': 'gzip, deflate, br',
};

let stopping = false;
const counts = { requests: 0, beyondAgent: 0, errors: 0, bytes: 0 };

/** GET, read (and drop) the body up to the cap; the status and Retry-After, or 0 on an error. */
async function fetchOnce(url: string): Promise<{ status: number; retryAfterMs: number }> {
  try {
    const res = await request(url, {
      method: 'GET',
      headers,
      dispatcher,
      signal: AbortSignal.timeout(plan.totalTimeoutMs),
    });
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size >= plan.maxBodyBytes) break;
    }
    counts.bytes += size;
    const ra = Number(res.headers['retry-after']);
    return { status: res.statusCode, retryAfterMs: Number.isFinite(ra) ? ra * 1000 : 0 };
  } catch {
    counts.errors++;
    return { status: 0, retryAfterMs: 0 };
  }
}

async function crawlHost(h: CeilingHost): Promise<void> {
  let nextAt = 0;
  let errors = 0;
  for (let i = 0; i < h.targets.length; i++) {
    // Like HostPacer.wait: timers may fire a fraction of a ms early, so re-check.
    for (let wait = nextAt - performance.now(); wait > 0; wait = nextAt - performance.now())
      await sleep(Math.ceil(wait) + 1);
    if (stopping) return;
    const target = h.targets[i]!;
    const started = performance.now();
    const { status, retryAfterMs } = await fetchOnce(`http://${h.host}:${plan.port}${target}`);
    if (stopping) return;
    counts.requests++;
    if (i >= h.agentRequests) counts.beyondAgent++;
    const end = performance.now();
    let gap = Math.max(h.gapMs, Math.min(30_000, 10 * (end - started)));
    if (target === '/robots.txt' && status >= 500) gap = Math.max(gap, plan.robotsRetryBaseMs);
    else if (status === 0 || RETRY_STATUSES.has(status)) {
      errors++;
      const backoff = Math.min(plan.backoffMaxMs, plan.backoffBaseMs * 2 ** (errors - 1));
      gap = Math.max(gap, retryAfterMs, backoff);
    } else errors = 0;
    nextAt = end + gap;
  }
}

process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify(counts)}\n`, () => process.exit(0));
});
// Stay up until SIGTERM even when every host is done, so the parent's last sample finds us.
const keepAlive = setInterval(() => undefined, 1000);
await Promise.all(plan.hosts.map((h) => crawlHost(h)));
console.error(`ceiling: every host done (${counts.requests} requests)`);
void keepAlive;
