/**
 * @crawler/synthetic-web — a deterministic synthetic web on loopback addresses for tests,
 * benchmarks and demos, plus a scorer that reads its request log. See README.md.
 */
import { assignHosts, MAX_HOSTS } from './model/assign.js';
import { PlanCache } from './model/plan.js';
import { applyRealistic, originOf } from './model/realistic.js';
import {
  buildManifest,
  computeCrawlSet,
  siteInfos,
  type CrawlSet,
  type ManifestSource,
} from './manifest.js';
import { createHandler, type WebState } from './server/handler.js';
import { listenHosts } from './server/listen.js';
import { RequestLog } from './server/request-log.js';
import type { Manifest, SyntheticWeb, SyntheticWebOptions } from './types.js';

export type {
  FetchClass,
  Manifest,
  RequestLogEntry,
  RobotsVariant,
  ScoreInput,
  ScoreReport,
  SiteInfo,
  SyntheticWeb,
  SyntheticWebOptions,
  Violation,
} from './types.js';
export {
  fleetRobotsTxt,
  startHostileFleet,
  type HostileFleet,
  type HostileFleetOptions,
} from './server/hostile-fleet.js';
export { scoreCrawl } from './scorer/score.js';
export { readRequestLog } from './scorer/read-log.js';
export { canonicalizeUrl, isTrapUrl, isTrackingParam } from './canonical.js';
export {
  NOOP_PARAMS,
  PAGER_PAGES,
  SESSION_PARAMS,
  stripSessionPathParams,
  TRAP_FAMILIES,
  trapFamilyOfPathKey,
  withoutNoopParams,
  type TrapFamily,
} from './trap-patterns.js';
export {
  classifyFetch,
  type FetchClassInput,
  type FetchClassification,
} from './scorer/classify.js';

/** Default robots.txt product token the web is generated for. */
export const DEFAULT_PRODUCT_TOKEN = 'crawlerbot';

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

/**
 * Starts the synthetic web: binds one loopback address per host on a common port and serves it
 * until {@link SyntheticWeb.close}. Start-up does no per-page work (plans are built lazily), so
 * 5,000 hosts start in about a second.
 */
export async function startSyntheticWeb(opts: SyntheticWebOptions = {}): Promise<SyntheticWeb> {
  const seed = opts.seed ?? 1;
  const count = checkInt('hosts', opts.hosts ?? 300, 1, MAX_HOSTS);
  const maxPages = checkInt('maxPagesPerHost', opts.maxPagesPerHost ?? 200, 1, 100_000);
  const token = (opts.productToken ?? DEFAULT_PRODUCT_TOKEN).toLowerCase();
  const initialCycle = checkInt('cycle', opts.cycle ?? 1, 1, 1_000_000);
  checkInt('port', opts.port ?? 0, 0, 65535);
  const headers = assignHosts(
    seed,
    count,
    maxPages,
    opts.hostile ?? true,
    opts.trapFamilies ?? false,
  );
  const profile = opts.profile ?? 'simple';
  if (profile !== 'simple' && profile !== 'realistic')
    throw new RangeError(`profile must be simple or realistic, got ${String(profile)}`);
  if (profile === 'realistic') applyRealistic(seed, headers, opts.tls !== undefined);
  const state: WebState = {
    seed,
    port: opts.port ?? 0,
    cycle: initialCycle,
    token,
    headers,
    plans: new PlanCache(seed, headers),
    byName: new Map(headers.map((h) => [h.host, h.index])),
    busyServed: new Set(),
    shopRenders: 0,
    sessionRenders: new Map(),
    logLinks: opts.logLinks ?? false,
    httpsOf: (i) => headers[i]?.https === true,
  };
  const log = new RequestLog(opts.logPath);
  const listeners = await listenHosts(
    headers.map((h) => h.ip),
    state.port,
    createHandler(state, log),
    opts.tls === undefined
      ? undefined
      : { ...opts.tls, ips: new Set(headers.filter((h) => h.https === true).map((h) => h.ip)) },
  ).catch(async (err: unknown) => {
    await log.close();
    throw err;
  });
  state.port = listeners.port;
  const src: ManifestSource = { seed, port: state.port, token, headers, plans: state.plans };
  const hosts = siteInfos(src);
  let crawlSet: CrawlSet | null = null;
  const manifests = new Map<number, Manifest>();
  let closed: Promise<void> | null = null;

  return {
    port: state.port,
    hosts,
    dnsMap: Object.fromEntries(headers.map((h) => [h.host, h.ip])),
    seeds: headers.map((h) => `${originOf(h, state.port)}/`),
    manifest() {
      let m = manifests.get(state.cycle);
      if (m === undefined) {
        crawlSet ??= computeCrawlSet(src);
        m = buildManifest(src, crawlSet, state.cycle, hosts);
        manifests.set(state.cycle, m);
      }
      return m;
    },
    setCycle(n: number) {
      state.cycle = checkInt('cycle', n, 1, 1_000_000);
    },
    log() {
      return log.entries();
    },
    tlsHandshakes() {
      return { ...listeners.tls };
    },
    close() {
      closed ??= (async () => {
        await listeners.close();
        await log.idle(2000);
        await log.close();
      })();
      return closed;
    },
  };
}
