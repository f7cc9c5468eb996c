import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import type { Config } from '@crawler/domain/config';
import type { RedisClient } from '@crawler/adapters/redis';
import { AppError } from '../api/app-error';
import { isoOfClickhouse } from '../clickhouse/clickhouse-time';
import type { AuditAction } from '../audit/audit-entry';
import { atLeast, type Role } from '../auth/roles';
import type { Store } from '../db/store';
import { canonicalHost, hostBase } from './host-policy';
import type { HostDetails } from './host-details.types';
import { readRobots } from './read-robots';

// The host is the first column of the sorting key: both reads touch only its granules.
const RECENT_SQL = `
SELECT url, toString(fetched_at) AS fetched_at, status, error_code, fetch_ms, bytes
FROM fetches FINAL WHERE host = {host:String} AND error_code != 'robots_denied'
ORDER BY fetched_at DESC LIMIT 50
SETTINGS do_not_merge_across_partitions_select_final = 1`;

const ERRORS_SQL = `
SELECT url, toString(fetched_at) AS fetched_at, status, error_code
FROM fetches FINAL
WHERE host = {host:String} AND (status = 0 OR status >= 400 OR error_code != '')
ORDER BY fetched_at DESC LIMIT 20
SETTINGS do_not_merge_across_partitions_select_final = 1`;

type Num = number | string;

/**
 * The actions whose target is a host. Entries of other actions may name the same string (an
 * account's email, a token id), and are none of a host's business.
 */
const HOST_ACTIONS: AuditAction[] = [
  'hosts.update',
  'hosts.addBlockPattern',
  'hosts.removeBlockPattern',
  'seeds.add',
  'deadLetters.requeue',
];

export interface HostDetailsDeps {
  store: Store;
  frontier: Frontier;
  analytics: AnalyticsStore;
  redis: RedisClient;
  config: Config;
}

/**
 * `GET /v1/hosts/{host}`: policy and frontier state, the robots.txt agents use, recent fetches
 * and errors, and the host's audit trail. 404 when no store knows the host. The audit entries
 * name who made each change only for operators and admins (`actor` is null for a viewer), as
 * the audit log itself does: viewers see what changed, not who changed it.
 */
export async function getHostDetails(
  deps: HostDetailsDeps,
  rawHost: string,
  callerRole: Role,
): Promise<HostDetails> {
  const showActors = atLeast(callerRole, 'operator');
  const host = canonicalHost(rawHost);
  const [base, robots, recent, errors, audit] = await Promise.all([
    hostBase(
      {
        policies: deps.store.policies,
        frontier: deps.frontier,
        defaultGapMs: deps.frontier.defaults.defaultGapMs,
        defaultDailyBudget: deps.config.HOST_DAILY_BUDGET,
      },
      host,
    ),
    readRobots({ ...deps, uaToken: deps.config.CRAWLER_UA_TOKEN }, host),
    deps.analytics.queryJson<{
      url: string;
      fetched_at: string;
      status: Num;
      error_code: string;
      fetch_ms: Num;
      bytes: Num;
    }>(RECENT_SQL, { host }),
    deps.analytics.queryJson<{ url: string; fetched_at: string; status: Num; error_code: string }>(
      ERRORS_SQL,
      { host },
    ),
    deps.store.audit.list({ target: host, action: HOST_ACTIONS }, undefined, 20),
  ]);
  if (!base.known && recent.length === 0 && errors.length === 0 && robots === null)
    throw new AppError('NOT_FOUND', `host ${host} is not known`);
  return {
    ...base.view,
    robots,
    recent_fetches: recent.map((r) => ({
      url: r.url,
      fetched_at: isoOfClickhouse(r.fetched_at),
      status: Number(r.status),
      error_code: r.error_code,
      fetch_ms: Number(r.fetch_ms),
      bytes: Number(r.bytes),
    })),
    recent_errors: errors.map((r) => ({
      url: r.url,
      fetched_at: isoOfClickhouse(r.fetched_at),
      status: Number(r.status),
      error_code: r.error_code,
    })),
    audit: audit.map((a) => ({
      at: a.at.toISOString(),
      actor: showActors ? a.actorLabel : null,
      action: a.action,
      before: a.before,
      after: a.after,
    })),
  };
}
