/**
 * What the crawl has learned about one host's URLs, and the rules it applies with it:
 * - URL families (url-shape.ts) whose pages keep coming back near-identical (SimHash), or keep
 *   bringing no new link outside the family (link-novelty.ts), are closed (`template_exhausted`);
 *   a family's first page that matches a closed family's pages closes it at once (one site's
 *   calendar in several URL forms);
 * - a pager's next/previous link past `maxPagerDepth`, URLs combining more than `maxQueryParams` parameters, and
 *   families using more than `maxFacetCombos` parameter combinations are refused
 *   (`pager_depth`, `facet_explosion`);
 * - a query parameter whose value never changed the body (identical SHA-256 or near SimHash
 *   across URLs that differ only in it) is learned as a no-op and stripped from later URLs;
 * - a 200 answer near-identical to the host's soft-404 probe answer is a soft 404;
 * - a host whose bodies are mostly exact duplicates has today's budget cut.
 * Pure state: the agent holding the host's lease loads it from Redis, applies it, and saves it.
 * Every list in it is bounded, so one host's state stays a few kilobytes whatever it serves.
 */
import { hammingDistance } from '../dedupe';
import { safeParseJson } from '../messages/safe-parse-json';
import { DEFAULT_QUALITY_LIMITS, type QualityLimits, type QualityRule } from './quality-limits';
import { paramSet, urlShape, withoutParams, type UrlShape } from './url-shape';
import {
  dayOf,
  emptyData,
  hostQualitySchema,
  isSimhash,
  packObservations,
  titleShape,
  unpackObservations,
  type HostQualityData,
  type Observation,
} from './host-quality-data';
import { creditEntries, observeFamily } from './host-quality-families';
import type { PageNovelty } from './link-novelty';
import { learnParams } from './host-quality-params';

export { hostQualitySchema, titleShape, type HostQualityData } from './host-quality-data';

/** Query parameter names taken as pager page numbers. */
const PAGER_PARAMS = new Set(['page', 'p', 'pg', 'pagenum', 'pageno', 'paged', 'page_number']);
/** `/page/N` path form of a pager. */
const PAGER_PATH = /\/page\/(\d+)(?:\/|$)/;

/** What to do with a URL of the host before it is fetched or queued. */
export type ScreenVerdict =
  | { kind: 'keep'; url: string; throttled: boolean }
  | { kind: 'strip'; url: string; params: string[] }
  | { kind: 'drop'; rule: QualityRule };

/** One fetch of the host, as the rules need it. */
export interface FetchObservation {
  url: string;
  status: number;
  /** SHA-256 hex of the body ('' when none). */
  sha256: string;
  /** SimHash of the page text ('' when not HTML). */
  simhash: string;
  /** The body repeated another URL's exactly. */
  duplicate: boolean;
  /** The page matched the host's soft-404 answer. */
  soft404: boolean;
  /** The page's title ('' when none). */
  title?: string;
  /** When (ms). */
  at: number;
}

/** The page number of a pager URL (`page=N` and the like, or `/page/N/`), or null. */
function pageNumber(url: string, shape: UrlShape): number | null {
  for (const p of shape.params)
    if (PAGER_PARAMS.has(p.name.toLowerCase()) && /^\d+$/.test(p.value)) return Number(p.value);
  const m = PAGER_PATH.exec(url.split('?', 1)[0]!);
  return m ? Number(m[1]) : null;
}

/** One host's quality state and the rules it applies (see above); learns from each fetch. */
export class HostQuality {
  private changed = false;
  /** Cache of {@link nothingToApply}; reset whenever a family changes. */
  private quiet: boolean | null = null;
  /** The observations unpacked (key → oldest first), once a fetch needed them. */
  private obs: Map<string, Observation[]> | null = null;

  private constructor(
    private readonly data: HostQualityData,
    private readonly limits: QualityLimits,
  ) {}

  /** A host never seen. */
  static fresh(limits: QualityLimits = DEFAULT_QUALITY_LIMITS, now = Date.now()): HostQuality {
    return new HostQuality(emptyData(now), limits);
  }

  /**
   * The state read back from Redis; null or invalid JSON gives a fresh state (what was learned
   * is then relearned — nothing is fetched that the rules would not also allow a new host).
   */
  static parse(
    raw: string | null,
    limits: QualityLimits = DEFAULT_QUALITY_LIMITS,
    now = Date.now(),
  ): HostQuality {
    const parsed = raw === null ? null : safeParseJson(hostQualitySchema, raw);
    return parsed?.success ? new HostQuality(parsed.data, limits) : HostQuality.fresh(limits, now);
  }

  /** JSON to store; `dirty` says whether anything changed since it was read. */
  serialize(): string {
    if (this.obs !== null) this.data.o = packObservations(this.obs);
    return JSON.stringify(this.data);
  }
  get dirty(): boolean {
    return this.changed;
  }

  /** After a save: nothing changed since. */
  markSaved(): void {
    this.changed = false;
  }

  /**
   * What the rules act on, as one string: closed and repeating families, their facet
   * combinations, learned parameters, the probe, the budget cut. Two equal signatures apply the
   * same rules (observations and day counters aside), so a save can wait.
   */
  ruleSignature(): string {
    const parts: string[] = [];
    for (const [name, fam] of Object.entries(this.data.f))
      if (fam.c || fam.run > 0 || fam.s)
        parts.push(`${name}|${fam.c ?? ''}|${fam.run > 0 ? 1 : 0}|${fam.s?.length ?? 0}`);
    for (const [name, state] of Object.entries(this.data.p)) parts.push(`p:${name}=${state}`);
    parts.push(`pr:${this.data.pr === undefined ? '?' : this.data.pr === null ? '-' : '+'}`);
    parts.push(`cut:${this.data.d.cut}`);
    return parts.join('\n');
  }

  /** No family closed or repeating itself: a URL without a query can only be kept. */
  private nothingToApply(): boolean {
    if (this.quiet !== null) return this.quiet;
    this.quiet = true;
    for (const fam of Object.values(this.data.f))
      if (fam.c || fam.run > 0) {
        this.quiet = false;
        break;
      }
    return this.quiet;
  }

  /** Whether the host still needs its soft-404 probe. */
  needsProbe(): boolean {
    return this.data.pr === undefined;
  }

  /** Records the probe's answer: a 200 page's SimHash and title, or null when it answered otherwise. */
  setProbe(status: number, simhash: string, title = ''): void {
    this.data.pr =
      status >= 200 && status < 300 && isSimhash(simhash)
        ? { s: status, h: simhash, ...(title.trim() ? { t: titleShape(title) } : {}) }
        : null;
    this.changed = true;
  }

  /**
   * A 2xx page near-identical to the host's answer for a path that does not exist: within
   * `soft404Bits`, or twice that when its title is the probe answer's too (a not-found page
   * that echoes the path moves its SimHash a little).
   */
  isSoft404(status: number, simhash: string, title = ''): boolean {
    const probe = this.data.pr;
    if (!probe || status < 200 || status >= 300 || !isSimhash(simhash)) return false;
    const bits = hammingDistance(probe.h, simhash);
    const sameTitle = probe.t !== undefined && probe.t === titleShape(title);
    return bits <= this.limits.soft404Bits * (sameTitle ? 2 : 1);
  }

  /** What the host taught about a query parameter, if anything. */
  paramState(name: string): 'noop' | 'real' | undefined {
    return Object.hasOwn(this.data.p, name) ? this.data.p[name] : undefined;
  }

  /** URL families closed on this host (a trap-heavy host has several). */
  closedFamilies(): number {
    let n = 0;
    for (const fam of Object.values(this.data.f)) if (fam.c) n++;
    return n;
  }

  /** Learned no-op parameters. */
  noopParams(): string[] {
    return Object.entries(this.data.p)
      .filter(([, v]) => v === 'noop')
      .map(([k]) => k);
  }

  /**
   * Pages the host may still get today when its budget was cut for duplicates, else null.
   */
  budgetLeft(now = Date.now()): number | null {
    this.rollDay(now);
    const d = this.data.d;
    return d.cut > 0 ? Math.max(0, d.cut - d.n) : null;
  }

  /**
   * The rules' verdict on a URL of this host (normalized): drop it (and why), fetch it without
   * its no-op parameters, or keep it (`throttled` when its family has started repeating itself:
   * queue it behind the host's other work). `from` is the page the URL was found on, when it is
   * a link: the pager rule judges a step from one pager page to the next.
   */
  screen(url: string, from?: string): ScreenVerdict {
    // Most URLs of most hosts: no query, no pager path, and nothing learned that could apply.
    if (!url.includes('?') && !url.includes('/page/') && this.nothingToApply())
      return { kind: 'keep', url, throttled: false };
    const shape = urlShape(url);
    const shapeRule = this.shapeRule(url, shape, from);
    if (shapeRule) return { kind: 'drop', rule: shapeRule };
    const fam = this.data.f[shape.family];
    if (fam?.c) return { kind: 'drop', rule: fam.c };
    if (shape.params.length > 0) {
      const combos = fam?.s ?? [];
      const set = paramSet(shape);
      if (combos.length >= this.limits.maxFacetCombos && !combos.includes(set))
        return { kind: 'drop', rule: 'facet_explosion' };
      const noop = shape.params.map((p) => p.name).filter((n) => this.data.p[n] === 'noop');
      if (noop.length > 0)
        return {
          kind: 'strip',
          url: withoutParams(url, new Set(noop)),
          params: [...new Set(noop)],
        };
    }
    return { kind: 'keep', url, throttled: (fam?.run ?? 0) > 0 };
  }

  /**
   * Learns from one fetch of the host (call once per fetch): today's duplicate counters and the
   * no-op parameters. HTML pages also go through {@link judgePage} first.
   */
  observe(o: FetchObservation): void {
    this.changed = true;
    this.rollDay(o.at);
    const d = this.data.d;
    d.n++;
    if (o.duplicate) d.dup++;
    if (d.cut === 0 && d.n >= this.limits.dupMinFetches && d.dup / d.n >= this.limits.dupShare)
      d.cut = Math.max(
        this.limits.dupMinFetches,
        Math.ceil(this.limits.dupBudgetFactor * (d.n - d.dup)),
      );
    if (o.status < 200 || o.status >= 300 || o.soft404 || o.sha256 === '') return;
    this.obs ??= unpackObservations(this.data.o);
    learnParams(this.data.p, this.obs, o, urlShape(o.url), this.limits.nearBits);
  }

  /**
   * Judges a parsed 2xx HTML page against its URL family, before its links are followed:
   * `stale` when it repeats the family's recent pages (near SimHash, or the same text but for
   * its numbers: `textShape`), brings no novelty (`novelty`: its new links, counted by
   * link-novelty.ts; see observeFamily), or is a soft 404 — its links
   * into its own family are then not followed (it brings nothing new), and a family whose
   * recent pages keep being stale is closed.
   */
  judgePage(
    url: string,
    page: { simhash: string; title: string; textShape?: string; novelty?: PageNovelty | null },
    soft404: boolean,
  ): { stale: boolean } {
    if (!soft404 && !isSimhash(page.simhash)) return { stale: false };
    this.changed = true;
    const textShape = /^[0-9a-f]{16}$/.test(page.textShape ?? '') ? page.textShape! : null;
    this.quiet = null;
    if (page.novelty?.entries) creditEntries(this.data.f, page.novelty.entries);
    return {
      stale: observeFamily(
        this.data.f,
        this.limits,
        urlShape(url),
        soft404 ? null : page.simhash,
        titleShape(page.title),
        textShape,
        page.novelty ?? null,
      ),
    };
  }

  /** Whether two URLs of this host belong to one URL family. */
  static sameFamily(a: string, b: string): boolean {
    return urlShape(a).family === urlShape(b).family;
  }

  private shapeRule(url: string, shape: UrlShape, from: string | undefined): QualityRule | null {
    if (shape.params.length > this.limits.maxQueryParams) return 'facet_explosion';
    if (from === undefined) return null;
    // A pager is a chain: page N links N ± 1 of its own template. Only such a step past the
    // cap is refused, so a site that merely numbers its pages `page=N` keeps them all.
    const n = pageNumber(url, shape);
    if (n === null || n <= this.limits.maxPagerDepth) return null;
    const fromShape = urlShape(from);
    const m = pageNumber(from, fromShape);
    return fromShape.template === shape.template && m !== null && Math.abs(n - m) === 1
      ? 'pager_depth'
      : null;
  }

  private rollDay(now: number): void {
    const day = dayOf(now);
    if (this.data.d.day !== day) {
      this.data.d = { day, n: 0, dup: 0, cut: 0 };
      this.changed = true;
    }
  }
}
