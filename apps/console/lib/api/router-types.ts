// What the console reads and sends, inferred from the coordinator's tRPC router: a type-only
// import (no code crosses from one app to another), so a changed procedure fails the console's
// type check instead of its pages.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@crawler/coordinator';

export type { AppRouter };
/** Every procedure's answer, e.g. `RouterOutputs['hosts']['get']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** Every procedure's input, e.g. `RouterInputs['hosts']['update']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;

/** The stored user as `users.list` shows it. */
export type UserItem = RouterOutputs['users']['list']['items'][number];
/** One audit entry (`audit.list`). */
export type AuditItem = RouterOutputs['audit']['list']['items'][number];
/** A host with its policy, queue, robots.txt, fetches and audit (`hosts.get`). */
export type HostDetail = RouterOutputs['hosts']['get'];
/** A fetch attempt of a host (recent fetches, or errors: those carry no time and size). */
export type HostFetch = HostDetail['recent_errors'][number] &
  Partial<Pick<HostDetail['recent_fetches'][number], 'fetch_ms' | 'bytes'>>;
/** One fetch of a URL, with where its WARC record is (`urls.inspect`). */
export type UrlFetch = RouterOutputs['urls']['inspect']['history'][number];
/** The crawl at a glance (`stats.get`). */
export type CrawlStats = RouterOutputs['stats']['get'];
/** Charts over a window (`stats.series`). */
export type StatsSeries = RouterOutputs['stats']['series'];
/** A window of the charts. */
export type StatsWindow = NonNullable<RouterInputs['stats']['series']['window']>;
/** What `seeds.add` accepted, and each refused entry with its reason. */
export type SeedsResult = RouterOutputs['seeds']['add'];
