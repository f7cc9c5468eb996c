/**
 * The ceiling of `npm run bench -- agent`: a bare undici loop over the agent's URLs with the
 * agent's politeness and nothing else — no robots parsing, no HTML parsing, no hashes, no WARC,
 * no telemetry, no Redis. Run as a child (`node --import tsx scripts/bench/agent-ceiling.ts
 * PLAN.json`); it fetches until SIGTERM, then prints one JSON line of counts and exits.
 *
 * Politeness, as the agent's HostPacer and frontier apply it: per host one keep-alive connection
 * and one request at a time; the next starts `max(gap, Crawl-delay, min(30 s, 10 × fetch time))`
 * after the previous ended (this loop's own event-loop lag taken off the fetch time, as the agent
 * does); hosts start as the agent's lease ramp lets them. One difference, which makes the ceiling
 * generous: its fetch time counts from when the request had its connection, so that thousands of
 * TLS handshakes queued for this process's CPU at the start do not park every host for 10× their
 * wait (the agent counts from the request's start: reading the server's part there let more
 * bodies in at once and took the hostile-hosts test past its 512 MB). After a 429/5xx/timeout/
 * network error the host also waits
 * `max(Retry-After, min(cap, base × 2^(errors−1)))`; after a 5xx robots.txt it waits the robots
 * retry delay.
 *
 * Two modes (the plan's `mode`): `fetch` reads and drops each body; `work` also does, for every
 * response, exactly the per-byte work of an archiving crawler and nothing else (decode the
 * Content-Encoding, SHA-256, gzip level 1 of headers + body, one htmlparser2 Tokenizer pass
 * collecting hrefs) in worker threads, one per core (`ceiling-worker.mjs`), the body transferred,
 * not copied; a host's next request waits for that work, as a crawler's would. HTTPS hosts are
 * verified against Node's roots plus the plan's CA (never `rejectUnauthorized: false`).
 *
 * Its last stdout line: counts, the event-loop utilization from its first response to SIGTERM,
 * and in `work` mode the workers' thread ids (the parent reads their CPU from /proc) and their
 * event-loop utilization.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { availableParallelism } from 'node:os';
import { performance as perf, type EventLoopUtilization } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { Agent, buildConnector, request } from 'undici';
import { LoopLag, safetyMarginMs } from '@crawler/crawl-core';
import type { CeilingHost, CeilingPlan } from './ceiling-plan';

const plan = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as CeilingPlan;
const ips = new Map(plan.hosts.map((h) => [h.host, h.ip]));
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
/** As the agent's pacer: this loop's own lag is taken off a fetch time before the 10× rule. */
const lag = new LoopLag();

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
// The agent's connector (one secure context: as `ca`, each connection would parse Node's roots
// again, ~20 ms), remembering when each origin's connection was up: the 10× rule reads the time
// from then (the server's part of a fetch; see the header).
const connectedAt = new Map<string, number>();
const sessions = new Map<string, Buffer>();
const connector = buildConnector({
  lookup,
  timeout: plan.connectTimeoutMs,
  maxCachedSessions: 4096,
  rejectUnauthorized: true,
  ...(plan.caPem
    ? { secureContext: createSecureContext({ ca: [...rootCertificates, plan.caPem] }) }
    : {}),
});
// The agent's dispatcher settings: one connection per origin, no pipelining, same limits.
const dispatcher = new Agent({
  connections: 1,
  pipelining: 1,
  keepAliveTimeout: 30_000,
  connectTimeout: plan.connectTimeoutMs,
  headersTimeout: plan.firstByteTimeoutMs,
  bodyTimeout: plan.firstByteTimeoutMs,
  maxHeaderSize: 64 * 1024,
  connect: (options, callback) =>
    connector(options, (...args) => {
      const socket = args[1];
      if (socket) connectedAt.set(`${options.protocol}//${options.hostname}`, performance.now());
      // As the agent: each host's TLS session held strongly (undici's cache is weak).
      if (socket && 'getCipher' in socket)
        socket.on('session', (session: Buffer) => sessions.set(options.hostname, session));
      callback(...args);
    }),
});
// The agent's request headers, so the web does the same work and sends the same bytes.
const headers = {
  'User-Agent': plan.userAgent,
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Encoding': 'gzip, deflate, br',
};

let stopping = false;
const counts = {
  mode: plan.mode,
  requests: 0,
  beyondAgent: 0,
  errors: 0,
  bytes: 0,
  worked: 0,
  workErrors: 0,
  decodedBytes: 0,
  hrefs: 0,
};

/** The work pool (`work` mode): one worker per core, each task to the least busy worker. */
interface PoolWorker {
  worker: Worker;
  tid: number;
  busy: number;
  elu0: EventLoopUtilization | null;
}
type WorkResult = { hrefs: number; decodedBytes: number; error: boolean };
const pool: PoolWorker[] = [];
const pending = new Map<number, (r: WorkResult) => void>();
let nextTask = 0;
if (plan.mode === 'work') {
  const ready: Array<Promise<void>> = [];
  for (let i = 0; i < availableParallelism(); i++) {
    const worker = new Worker(new URL('./ceiling-worker.mjs', import.meta.url));
    const pw: PoolWorker = { worker, tid: 0, busy: 0, elu0: null };
    ready.push(
      new Promise((resolve) =>
        worker.once('message', (m: { tid: number }) => {
          pw.tid = m.tid;
          resolve();
        }),
      ),
    );
    worker.on('message', (m: { id?: number } & WorkResult) => {
      if (m.id === undefined) return;
      pw.busy--;
      pending.get(m.id)?.(m);
      pending.delete(m.id);
    });
    worker.on('error', (err) => console.error(`ceiling worker: ${err.message}`));
    pool.push(pw);
  }
  // Referenced until they are up (unreferenced, nothing else would keep this process alive).
  await Promise.all(ready);
  for (const pw of pool) pw.worker.unref();
}

/** Hands one response to the least busy worker, the body transferred (not copied). */
function work(head: string, body: Buffer, encoding: string, html: boolean): Promise<WorkResult> {
  const pw = pool.reduce((a, b) => (b.busy < a.busy ? b : a));
  pw.busy++;
  const id = nextTask++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    const ab = body.buffer as ArrayBuffer;
    pw.worker.postMessage({ id, head, body: ab, length: body.length, encoding, html }, [ab]);
  });
}

/** The response head as a WARC record carries it (status line and header lines). */
function headText(status: number, h: Record<string, string | string[] | undefined>): string {
  let out = `HTTP/1.1 ${status}\r\n`;
  for (const [k, v] of Object.entries(h))
    for (const x of Array.isArray(v) ? v : [v]) if (x !== undefined) out += `${k}: ${x}\r\n`;
  return `${out}\r\n`;
}

/** From the first response to SIGTERM: this thread's and the workers' event-loop use. */
let elu0: EventLoopUtilization | null = null;
function startUtilization(): void {
  if (elu0 !== null) return;
  elu0 = perf.eventLoopUtilization();
  for (const pw of pool) pw.elu0 = pw.worker.performance.eventLoopUtilization();
}

/**
 * GET, read the body up to the cap (dropped in `fetch` mode; in `work` mode into one buffer of
 * its own, then worked on); the status and Retry-After, or 0 on an error.
 */
async function fetchOnce(
  url: string,
): Promise<{ status: number; retryAfterMs: number; fetchedAt: number; serverMs: number }> {
  const started = performance.now();
  const origin = url.slice(0, url.indexOf('/', url.indexOf('//') + 2)).replace(/:\d+$/, '');
  const serverMs = (end: number): number => end - Math.max(started, connectedAt.get(origin) ?? 0);
  try {
    const res = await request(url, {
      method: 'GET',
      headers,
      dispatcher,
      signal: AbortSignal.timeout(plan.totalTimeoutMs),
    });
    let size = 0;
    const chunks: Buffer[] = [];
    // As the agent: a Content-Length over the cap is cut at the headers.
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > plan.maxBodyBytes)
      res.body.on('error', () => undefined).destroy();
    else
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (plan.mode === 'work') chunks.push(chunk);
        if (size >= plan.maxBodyBytes) break;
      }
    counts.bytes += size;
    const fetchedAt = performance.now();
    startUtilization();
    if (plan.mode === 'work') {
      // A buffer of its own (never the shared pool) so that its memory can be transferred.
      const body = Buffer.from(new ArrayBuffer(size));
      let at = 0;
      for (const c of chunks) {
        const n = Math.min(c.length, size - at);
        c.copy(body, at, 0, n);
        at += n;
      }
      const type = String(res.headers['content-type'] ?? '').toLowerCase();
      const r = await work(
        headText(res.statusCode, res.headers),
        body,
        String(res.headers['content-encoding'] ?? ''),
        type.startsWith('text/html') || type.startsWith('application/xhtml'),
      );
      counts.worked++;
      if (r.error) counts.workErrors++;
      counts.decodedBytes += r.decodedBytes;
      counts.hrefs += r.hrefs;
    }
    const ra = Number(res.headers['retry-after']);
    return {
      status: res.statusCode,
      retryAfterMs: Number.isFinite(ra) ? ra * 1000 : 0,
      fetchedAt,
      serverMs: serverMs(fetchedAt),
    };
  } catch (err) {
    if (counts.errors++ < 5) console.error(`ceiling: ${url}: ${(err as Error).message}`);
    const now = performance.now();
    return { status: 0, retryAfterMs: 0, fetchedAt: now, serverMs: serverMs(now) };
  }
}

let inFlight = 0;
/** Every 5 s on stderr: what the loop is doing (requests, errors, in flight). */
const progress = setInterval(
  () =>
    console.error(
      `ceiling: ${counts.requests} requests, ${counts.errors} errors, ${inFlight} in flight`,
    ),
  5000,
);
progress.unref();

/**
 * Host `i` starts as the agent's lease ramp would let it (AGENT_LEASE_RAMP_PER_S hosts at once,
 * as many more each second): all 5,000 robots.txt handshakes in one second would make every host
 * look slow to the 10× rule and park it for up to 30 s.
 */
async function crawlHost(h: CeilingHost, i: number): Promise<void> {
  const startAt = startedAt + Math.max(0, (i + 1) / plan.rampPerS - 1) * 1000;
  let nextAt = startAt;
  let errors = 0;
  for (let t = 0; t < h.targets.length; t++) {
    // Like HostPacer.wait: timers may fire a fraction of a ms early, so re-check.
    for (let wait = nextAt - performance.now(); wait > 0; wait = nextAt - performance.now())
      await sleep(Math.ceil(wait) + 1);
    if (stopping) return;
    const target = h.targets[t]!;
    inFlight++;
    const { status, retryAfterMs, fetchedAt, serverMs } = await fetchOnce(
      `${h.scheme}://${h.host}:${plan.port}${target}`,
    );
    inFlight--;
    if (stopping) return;
    counts.requests++;
    if (t >= h.agentRequests) counts.beyondAgent++;
    // The fetch ended when its body was read (the work after it is not fetch time).
    const end = fetchedAt;
    let gap = Math.max(h.gapMs, Math.min(30_000, 10 * lag.serverMs(serverMs)));
    if (target === '/robots.txt' && status >= 500) gap = Math.max(gap, plan.robotsRetryBaseMs);
    else if (status === 0 || RETRY_STATUSES.has(status)) {
      errors++;
      const backoff = Math.min(plan.backoffMaxMs, plan.backoffBaseMs * 2 ** (errors - 1));
      gap = Math.max(gap, retryAfterMs, backoff);
    } else errors = 0;
    // The agent's safety margin (HostPacer): the web logs a response's end a little after the
    // client has read it.
    nextAt = end + gap + safetyMarginMs(gap);
  }
}

process.on('SIGTERM', () => {
  stopping = true;
  const elu = elu0 === null ? null : perf.eventLoopUtilization(elu0).utilization;
  const workers = pool.map((pw) => ({
    tid: pw.tid,
    elu: pw.elu0 === null ? null : pw.worker.performance.eventLoopUtilization(pw.elu0).utilization,
  }));
  process.stdout.write(`${JSON.stringify({ ...counts, elu, workers })}\n`, () => process.exit(0));
});
// Stay up until SIGTERM even when every host is done, so the parent's last sample finds us.
const keepAlive = setInterval(() => undefined, 1000);
const startedAt = performance.now();
await Promise.all(plan.hosts.map((h, i) => crawlHost(h, i)));
console.error(`ceiling: every host done (${counts.requests} requests)`);
void keepAlive;
