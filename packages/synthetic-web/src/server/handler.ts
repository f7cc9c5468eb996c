/**
 * Request routing: Host header -> host, canonical path -> resource (or robots.txt, or a trap
 * route), with validators and conditional GETs on pages and files.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalPathKey } from '../canonical.js';
import type { HostHeader } from '../model/assign.js';
import type { PlanCache } from '../model/plan.js';
import type { HostPlan, Resource } from '../model/resources.js';
import { mix, Rng } from '../prng.js';
import { renderFile, renderSitemap } from '../render/files.js';
import { fillerCorpus } from '../render/filler.js';
import {
  renderCalendar,
  renderError,
  renderLoop,
  renderPage,
  renderShop,
  type RenderedPage,
} from '../render/html.js';
import { robotsAnswer, robotsText, sitemapUrls } from '../robots/variants.js';
import { sessionId, sessionNameOf } from '../model/trap-families.js';
import type { RenderContext } from '../render/html.js';
import { hasNearNoopParam, stripSessionPathParams } from '../trap-patterns.js';
import { serveHostile, SLOW_FIRST_BYTE_MS } from './hostile.js';
import { Reply } from './reply.js';
import { normalizeHostHeader, type RequestLog } from './request-log.js';
import { noopTarget, serveSoft404, serveTrapFamily } from './trap-routes.js';

/** Mutable state the handler reads. */
export interface WebState {
  seed: number;
  port: number;
  cycle: number;
  token: string;
  headers: readonly HostHeader[];
  plans: PlanCache;
  byName: Map<string, number>;
  /** `${cycle} ${host} ${path}` of busy pages that already answered 503 once. */
  busyServed: Set<string>;
  /** Counter that makes session ids differ per render. */
  shopRenders: number;
  /** Renders per host of pages whose links carry session ids (host index → count). */
  sessionRenders: Map<number, number>;
  /** Record the links of every HTML page answered 200 in its log entry (`links`). */
  logLinks: boolean;
  /** Whether host i serves HTTPS. */
  httpsOf: (host: number) => boolean;
}

const HTML = 'text/html; charset=utf-8';
const FILE_LAST_MODIFIED = new Date(Date.UTC(2024, 0, 15, 12)).toUTCString();

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('hex').slice(0, 20)}"`;
}

/** True when the request's validators match (If-None-Match first, else If-Modified-Since). */
function notModified(req: IncomingMessage, etag: string, lastModifiedMs: number): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) {
    return inm.split(',').some((t) => {
      const v = t.trim();
      return v === '*' || v === etag || v === `W/${etag}`;
    });
  }
  const ims = req.headers['if-modified-since'];
  if (ims === undefined) return false;
  const t = Date.parse(ims);
  return Number.isFinite(t) && Math.floor(lastModifiedMs / 1000) * 1000 <= t;
}

function sendValidated(
  reply: Reply,
  contentType: string,
  body: Buffer,
  lastModifiedMs: number,
  etag = etagOf(body),
): void {
  const headers = {
    'Content-Type': contentType,
    ETag: etag,
    'Last-Modified': new Date(lastModifiedMs).toUTCString(),
  };
  if (notModified(reply.req, etag, lastModifiedMs)) reply.send(304, headers, Buffer.alloc(0));
  else reply.send(200, headers, body);
}

/** A rendered page, with its precompressed gzip and ETag where it has them. */
function sendPage(reply: Reply, page: RenderedPage): void {
  const etag = page.etag ?? etagOf(page.body);
  const headers = {
    'Content-Type': HTML,
    ETag: etag,
    'Last-Modified': new Date(page.lastModifiedMs).toUTCString(),
  };
  if (notModified(reply.req, etag, page.lastModifiedMs)) reply.send(304, headers, Buffer.alloc(0));
  else reply.send(200, headers, page.body, page.gzip);
}

function serveRobots(state: WebState, plan: HostPlan, reply: Reply): void {
  const answer = robotsAnswer(plan.header, state.token, sitemapUrls(plan.header, state.port));
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
  if (answer.location !== undefined) headers.Location = answer.location;
  reply.send(answer.status, headers, answer.body ?? '');
}

/** Serves the trap routes of hosts that have them; false if the path is not one. */
function serveTrap(state: WebState, plan: HostPlan, path: string, reply: Reply): boolean {
  const f = plan.header.features;
  const cal = /^\/calendar\/(\d{4})\/(\d{2})$/.exec(path);
  if (cal && f.includes('trap-calendar')) {
    const month = Number(cal[2]);
    if (month < 1 || month > 12) return false;
    reply.send(200, { 'Content-Type': HTML }, renderCalendar(Number(cal[1]), month));
    return true;
  }
  const loop = /^\/loop\/((?:a\/)+)$/.exec(path);
  if (loop && f.includes('trap-loop')) {
    const depth = (loop[1] ?? '').length / 2;
    if (depth > 500) return false;
    reply.send(200, { 'Content-Type': HTML }, renderLoop(depth));
    return true;
  }
  if (/^\/shop(\/item-\d+)?\?sid=[0-9a-z]+$/.test(path) && f.includes('trap-session')) {
    const rng = new Rng(mix(state.seed, 'shop', plan.header.index, state.shopRenders++));
    const sids = [0, 1, 2].map(() => Math.floor(rng.next() * 0xffffffff).toString(16));
    reply.send(200, { 'Content-Type': HTML }, renderShop(sids));
    return true;
  }
  return false;
}

/** What a page render needs; a fresh session id on hosts whose links carry one. */
function renderContext(state: WebState, plan: HostPlan): RenderContext {
  const ctx: RenderContext = {
    seed: state.seed,
    port: state.port,
    cycle: state.cycle,
    httpsOf: state.httpsOf,
  };
  const h = plan.header;
  if (h.sessionInPath) {
    // Per host, so that a host's renders do not depend on the order other hosts are crawled in.
    const n = state.sessionRenders.get(h.index) ?? 0;
    state.sessionRenders.set(h.index, n + 1);
    ctx.session = `;${sessionNameOf(state.seed, h.index)}=${sessionId(state.seed, h.index, n)}`;
  }
  return ctx;
}

function serveResource(
  state: WebState,
  plan: HostPlan,
  res: Resource,
  reply: Reply,
): Promise<void> | void {
  switch (res.type) {
    case 'page': {
      if (res.busyOnce) {
        const key = `${state.cycle} ${plan.header.index} ${res.path}`;
        if (!state.busyServed.has(key)) {
          state.busyServed.add(key);
          reply.send(
            503,
            { 'Content-Type': HTML, 'Retry-After': '1' },
            renderError(503, 'Busy, retry later'),
          );
          return;
        }
      }
      sendPage(reply, renderPage(plan, res, renderContext(state, plan)));
      return;
    }
    case 'copy': {
      const orig = plan.resources.get(res.of);
      if (orig?.type !== 'page') throw new Error(`copy of missing page ${res.of}`);
      sendPage(reply, renderPage(plan, orig, renderContext(state, plan), res.near));
      return;
    }
    case 'redirect': {
      const location = res.location
        .replace('{host}', plan.header.host)
        .replace('{port}', String(state.port));
      reply.send(
        res.status,
        { 'Content-Type': HTML, Location: location },
        renderError(res.status, 'Moved'),
      );
      return;
    }
    case 'status':
      reply.send(
        res.status,
        { 'Content-Type': HTML },
        renderError(res.status, res.status === 410 ? 'Gone' : 'Error'),
      );
      return;
    case 'file': {
      const f = renderFile(state.seed, plan.header, res.path, res.file, res.bytes);
      sendValidated(reply, f.contentType, f.body, Date.parse(FILE_LAST_MODIFIED), f.etag);
      return;
    }
    case 'sitemap': {
      const pageIdOf = (p: string): number | null => {
        const r = plan.resources.get(p);
        return r?.type === 'page' ? r.id : null;
      };
      const f = renderSitemap(state.seed, plan, res, state.port, state.cycle, pageIdOf);
      reply.send(200, { 'Content-Type': f.contentType }, f.body);
      return;
    }
    case 'robots-target': {
      const text = robotsText(plan.header, state.token, sitemapUrls(plan.header, state.port)) ?? '';
      reply.send(200, { 'Content-Type': 'text/plain; charset=utf-8' }, text);
      return;
    }
    case 'hostile':
      return serveHostile(reply, res.mode);
  }
}

async function route(state: WebState, plan: HostPlan, reply: Reply): Promise<void> {
  const method = reply.req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    reply.send(
      405,
      { 'Content-Type': HTML, Allow: 'GET, HEAD' },
      renderError(405, 'Method not allowed'),
    );
    return;
  }
  const path = canonicalPathKey(reply.req.url ?? '/');
  if (path === null) {
    reply.send(400, { 'Content-Type': HTML }, renderError(400, 'Bad request'));
    return;
  }
  if (path === '/robots.txt') {
    serveRobots(state, plan, reply);
    return;
  }
  if (plan.header.kind === 'slow' && !(await reply.sleep(SLOW_FIRST_BYTE_MS))) return;
  // Session path parameters (`;jsessionid=…`) select nothing: the page is the same without.
  const key = stripSessionPathParams(path);
  if (serveTrap(state, plan, key, reply) || serveTrapFamily(state.seed, plan, key, reply)) return;
  const res = plan.resources.get(key);
  if (res !== undefined) {
    await serveResource(state, plan, res, reply);
    return;
  }
  const page = noopTarget(plan, key);
  if (page !== null) {
    // print/ref: the same bytes; sort/view: one word differs.
    sendPage(reply, renderPage(plan, page, renderContext(state, plan), hasNearNoopParam(key)));
    return;
  }
  if ((plan.header.features as string[]).includes('soft-404'))
    serveSoft404(state.seed, plan, key, reply);
  else reply.send(404, { 'Content-Type': HTML }, renderError(404, 'Not found'));
}

/** Builds the http 'request' listener. */
export function createHandler(
  state: WebState,
  log: RequestLog,
): (req: IncomingMessage, res: ServerResponse) => void {
  // The realistic web's filler is made now, not inside a crawl's first second.
  if (state.headers.some((h) => h.realism !== undefined)) fillerCorpus(state.seed);
  return (req, res) => {
    const host = normalizeHostHeader(req.headers.host);
    const entry = log.begin(req, res, host, state.port);
    const index = state.byName.get(host);
    const reply = new Reply(
      req,
      res,
      entry,
      state.logLinks,
      index === undefined ? undefined : state.headers[index]?.realism,
    );
    if (index === undefined) {
      reply.send(
        421,
        { 'Content-Type': HTML },
        renderError(421, 'Misdirected request: unknown host'),
      );
      return;
    }
    route(state, state.plans.get(index), reply).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent)
        reply.send(500, { 'Content-Type': 'text/plain' }, `internal error: ${message}\n`);
      else res.destroy();
    });
  };
}
