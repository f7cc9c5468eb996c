import type { AnalyticsStore } from '@crawler/analytics';
import type { HostPolicyRepository } from '../db/host-policy-repository';
import { isoOrNull } from '../clickhouse/clickhouse-time';
import { searchHostsInput, type HostListItem } from './search-hosts.types';

// The page's hosts first, then their counts. `fetches` is ordered by host first: the inner
// query reads only the host column, not merged, in key order from the cursor on (host > after
// skips granules by the primary index; aggregating in order stops soon after the page's last
// host); the outer one reads FINAL (a fetch replayed by the at-least-once ingest counts once)
// only the granules of the page's hosts (an IN over the key's prefix is a primary-index
// condition). Grouping the whole table FINAL, as this once did, read and merged every row for
// one page (see docs/BENCHMARKS.md, console). Same hosts, same rows of each: a host has rows
// FINAL iff it has rows at all (FINAL keeps one of each identity).
const HOSTS_SQL = `
SELECT host, countIf(error_code != 'robots_denied') AS fetches,
       toUnixTimestamp64Milli(max(fetched_at)) AS last_ms,
       countIf(error_code != 'robots_denied' AND (status = 0 OR status >= 500)) AS errors
FROM fetches FINAL
WHERE host IN (
  SELECT host FROM fetches
  WHERE host > {after:String} AND ({q:String} = '' OR positionCaseInsensitive(host, {q:String}) > 0)
  GROUP BY host ORDER BY host LIMIT {take:UInt32}
  SETTINGS optimize_aggregation_in_order = 1)
GROUP BY host ORDER BY host LIMIT {take:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;

type Raw = {
  host: string;
  fetches: string | number;
  last_ms: string | number;
  errors: string | number;
};

/**
 * `GET /v1/hosts`: hosts known from fetches (ClickHouse) or from operators' policies
 * (Postgres), merged in byte order of the name, one page after `cursor`.
 */
export async function searchHosts(
  deps: { analytics: AnalyticsStore; policies: HostPolicyRepository },
  raw: unknown,
): Promise<{ items: HostListItem[]; next_cursor: string | null }> {
  const input = searchHostsInput.parse(raw);
  const q = input.q.trim().toLowerCase();
  const [fetched, policies] = await Promise.all([
    deps.analytics.queryJson<Raw>(HOSTS_SQL, {
      after: input.cursor ?? '',
      q,
      take: input.limit + 1,
    }),
    deps.policies.search(q, input.cursor, input.limit + 1),
  ]);
  const names = [...new Set([...fetched.map((r) => r.host), ...policies.map((p) => p.host)])];
  // Byte order, as both stores sort.
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const page = names.slice(0, input.limit);
  const stats = new Map(fetched.map((r) => [r.host, r]));
  // A host of the page whose policy came after the policy list's end has none.
  const policyOf = new Map(policies.map((p) => [p.host, p]));
  const missing = page.filter((h) => !policyOf.has(h) && stats.has(h));
  for (const p of await deps.policies.getMany(missing)) policyOf.set(p.host, p);
  return {
    items: page.map((host) => {
      const s = stats.get(host);
      const p = policyOf.get(host);
      return {
        host,
        fetches: Number(s?.fetches ?? 0),
        last_fetch_at: s && Number(s.fetches) > 0 ? isoOrNull(Number(s.last_ms)) : null,
        errors: Number(s?.errors ?? 0),
        blocked: p?.blocked ?? false,
        rate_limit_rps: p?.rateLimitRps ?? null,
      };
    }),
    next_cursor: names.length > input.limit ? page[page.length - 1]! : null,
  };
}
