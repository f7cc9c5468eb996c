import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import type { ArchivedResponse } from '../archive/archive-response';
import type { HttpResponse } from '../fetch/http-client';
import type { HostPacer } from '../lease/host-pacer';
import type { PageParse } from '../parse/page-task';
import type { RobotsState } from '../robots/robots-cache';
import type { TelemetryBase } from '../telemetry/telemetry-row';

/**
 * One leased URL on its way through the agent (run-url.ts): what each step adds to it, in
 * order. A step takes the context the steps before it made and returns the next one, or ends
 * the URL's way there.
 */
export interface UrlContext {
  readonly r: AgentResources;
  readonly host: string;
  readonly entry: LeasedUrl;
  /** The connection's pacer: the host's gap and 10× rule. */
  readonly pacer: HostPacer;
  /** The host allows several connections: this request may open one beside the others. */
  readonly multiConnection: boolean;
  /** The robots.txt state of the URL's origin, settled before its turn. */
  readonly robots: RobotsState;
}

/** After the fetch step: the answer, its body held within the agent's body budget. */
export interface FetchedUrl extends UrlContext {
  readonly base: TelemetryBase;
  readonly res: HttpResponse;
}

/** After the archive step: the WARC records written, and for an HTML page its parse. */
export interface ArchivedUrl extends FetchedUrl {
  readonly archived: ArchivedResponse;
  /** A page whose links are followed (null: not HTML, or its body is no news). */
  readonly parse: PageParse | null;
  /** `parse_<reason>` when the parse pool failed on the page, else ''. */
  readonly parseError: string;
}

/** After the parse step: what the page says about itself and its host. */
export interface ParsedUrl extends ArchivedUrl {
  readonly page: {
    simhash: string;
    title: string;
    /** It answers like the host's missing pages: neither followed nor fed. */
    soft404: boolean;
    /** The host's quality rules find its family stale: its links are screened harder. */
    stale: boolean;
  } | null;
}

/** After the links step: the telemetry fields the way so far decided. */
export interface LinkedUrl extends ParsedUrl {
  readonly redirectTo: string;
  readonly errorCode: string;
}

/**
 * How a step ends: go on with the next step's context; the URL is done (`skip`: without a
 * request — robots.txt denies it, the quality rules skip it); retry it later (the host failed: the lease stops here and backs off); `cut` (the drain
 * abandoned the request: not done, back at the head of its queue); `stop` (the host's quality
 * rules end the lease before the URL, for `delayMs`).
 */
export type StepOutcome<C> =
  | { kind: 'next'; ctx: C }
  | { kind: 'done' }
  | { kind: 'skip' }
  | { kind: 'retry'; error: string; retryAfterMs: number }
  | { kind: 'cut' }
  | { kind: 'stop'; delayMs: number };

/** An outcome that ends the URL's way. */
export type UrlOutcome = Exclude<StepOutcome<never>, { kind: 'next' }>;

/**
 * One step of a URL's way. `runsIn` says where its work happens: on the event loop (network,
 * timers, Redis, small bookkeeping) or in the parse pool's workers (anything per byte of a body:
 * hashing, WARC records, gzip, parsing), the event loop only handing the body over and taking
 * the result.
 */
export interface Step<In, Out> {
  readonly name: string;
  readonly runsIn: 'event-loop' | 'parse-pool';
  run(ctx: In): Promise<StepOutcome<Out>>;
}

export const DONE: UrlOutcome = { kind: 'done' };
export const SKIP: UrlOutcome = { kind: 'skip' };
export const CUT: UrlOutcome = { kind: 'cut' };

/** Goes on with `ctx`. */
export function next<C>(ctx: C): StepOutcome<C> {
  return { kind: 'next', ctx };
}

/** The telemetry fields every row of this URL carries. */
export function rowFields(ctx: UrlContext, fetchedAt: Date): TelemetryBase {
  const { entry, host } = ctx;
  return { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt };
}
