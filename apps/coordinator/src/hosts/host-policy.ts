import { normalizeUrl } from '@crawler/domain/url';
import type { Frontier } from '@crawler/frontier';
import type { HostPolicyRepository, HostPolicyRow } from '../db/host-policy-repository';
import { AppError } from '../api/app-error';
import { auditEntry, type Actor } from '../audit/audit-entry';
import {
  hostName,
  hostPolicyPatch,
  type HostPolicyPatch,
  type HostPolicyView,
} from './host-policy.types';
import {
  effectivePolicy,
  suffixesOf,
  suffixOfPattern,
  type EffectivePolicy,
} from './effective-policy';
import { publishBlockRules, type BlockRulesDeps } from './publish-block-rules';

type Deps = {
  policies: HostPolicyRepository;
  frontier: Frontier;
  defaultGapMs: number;
  defaultDailyBudget: number;
};

/**
 * The canonical form of a host name (lowercase, punycode) or of a pattern `*.example.com`,
 * or a 400.
 */
export function canonicalHost(raw: string): string {
  const parsed = hostName.safeParse(raw);
  const pattern = raw.startsWith('*.');
  const name = pattern ? raw.slice(2) : raw;
  const n = parsed.success ? normalizeUrl(`http://${name}/`) : null;
  if (!n?.ok) throw new AppError('BAD_REQUEST', `host: "${raw}" is not a valid host name`);
  return pattern ? `*.${n.host}` : n.host;
}

/**
 * Sets the policy of a host or of a pattern `*.example.com`: written to Postgres (the record)
 * with its audit entry in one transaction, then into the frontier, where the next lease of
 * each host concerned uses it, and announced to agents. Blocking takes hosts out of the ready
 * set at once. For a pattern, every host the frontier or Postgres knows under it is rewritten,
 * and hosts seen later take it from the shards' copy. A change of `blocked` also republishes the
 * block rules, so agents drop links to the host at enqueue (publish-block-rules.ts).
 */
export async function setHostPolicy(
  deps: BlockRulesDeps & { frontier: Frontier },
  actor: Actor,
  rawHost: string,
  rawPatch: HostPolicyPatch,
): Promise<HostPolicyView> {
  const host = canonicalHost(rawHost);
  const patch = hostPolicyPatch.parse(rawPatch);
  const row = await deps.store.transaction(async (r) => {
    const before = await r.policies.getLocked(host);
    const after = await r.policies.upsert(host, {
      ...(patch.rate_limit_rps !== undefined ? { rateLimitRps: patch.rate_limit_rps } : {}),
      ...(patch.blocked !== undefined ? { blocked: patch.blocked } : {}),
      ...(patch.daily_budget !== undefined ? { dailyBudget: patch.daily_budget } : {}),
      ...(patch.allowlisted !== undefined ? { allowlisted: patch.allowlisted } : {}),
      ...(patch.max_connections !== undefined ? { maxConnections: patch.max_connections } : {}),
    });
    await r.audit.record(
      auditEntry(actor, 'hosts.update', host, before && policyFields(before), policyFields(after)),
    );
    return after;
  });
  const updated = await pushPolicy(deps.store.policies, deps.frontier, row);
  if (patch.blocked !== undefined) await publishBlockRules(deps);
  return { ...policyView(row), hosts_updated: updated };
}

function policyFields(row: HostPolicyRow) {
  return {
    rate_limit_rps: row.rateLimitRps,
    blocked: row.blocked,
    daily_budget: row.dailyBudget,
    allowlisted: row.allowlisted,
    max_connections: row.maxConnections,
  };
}

export function policyView(row: HostPolicyRow): HostPolicyView {
  return {
    host: row.host,
    kind: suffixOfPattern(row.host) === null ? 'host' : 'suffix',
    ...policyFields(row),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Writes a stored policy into the frontier (also used at start-up to resync every row): for a
 * host, its effective policy; for a pattern, the shards' copy and the effective policy of every
 * host known under it. Returns how many hosts were rewritten.
 */
export async function pushPolicy(
  policies: HostPolicyRepository,
  frontier: Frontier,
  row: HostPolicyRow,
): Promise<number> {
  const suffix = suffixOfPattern(row.host);
  if (suffix === null) {
    await pushEffective(policies, frontier, row.host, row);
    return 1;
  }
  await frontier.setSuffixPolicy(suffix, frontierPolicy(row));
  const [known, own] = await Promise.all([
    frontier.knownHostsUnder(suffix),
    policies.hostsUnder(suffix),
  ]);
  const ownOf = new Map(own.map((r) => [r.host, r]));
  const hosts = [...new Set([...known, ...ownOf.keys()])];
  for (const host of hosts) await pushEffective(policies, frontier, host, ownOf.get(host) ?? null);
  return hosts.length;
}

async function pushEffective(
  policies: HostPolicyRepository,
  frontier: Frontier,
  host: string,
  own: HostPolicyRow | null,
): Promise<EffectivePolicy> {
  const e = effectivePolicy(host, own, await policies.patternsFor(suffixesOf(host)));
  await frontier.setHostPolicy(host, frontierPolicy(e));
  return e;
}

/** A policy as the frontier takes it: a gap (ms) instead of a rate. */
function frontierPolicy<B extends boolean | null, A extends boolean | null>(p: {
  rateLimitRps: number | null;
  blocked: B;
  dailyBudget: number | null;
  allowlisted: A;
  maxConnections: number | null;
}) {
  return {
    gapMs: p.rateLimitRps ? 1000 / p.rateLimitRps : null,
    blocked: p.blocked,
    dailyBudget: p.dailyBudget,
    allowlisted: p.allowlisted,
    maxConnections: p.maxConnections,
  };
}

/** Policy and frontier state of a canonical host; `known` is false when neither has it. */
export async function hostBase(deps: Deps, host: string) {
  const [policy, patterns, state] = await Promise.all([
    deps.policies.get(host),
    deps.policies.patternsFor(suffixesOf(suffixOfPattern(host) ?? host)),
    deps.frontier.hostState(host),
  ]);
  const e = effectivePolicy(host, policy, patterns);
  const nextAt = Number(state.fields.next_at ?? 0);
  return {
    known: policy !== null || Object.keys(state.fields).length > 0,
    view: {
      host,
      policy: {
        rate_limit_rps: policy?.rateLimitRps ?? null,
        daily_budget: policy?.dailyBudget ?? null,
        allowlisted: policy?.allowlisted ?? null,
        max_connections: policy?.maxConnections ?? null,
        blocked: e.blocked,
        effective_gap_ms: e.rateLimitRps ? 1000 / e.rateLimitRps : deps.defaultGapMs,
        effective_daily_budget: e.allowlisted ? 0 : (e.dailyBudget ?? deps.defaultDailyBudget),
        effective_max_connections: e.maxConnections ?? 1,
        patterns: patterns
          .map((p) => p.host)
          .filter((p) => p !== host)
          .sort((a, b) => b.length - a.length),
      },
      queue_length: state.queued,
      next_allowed_at: nextAt > 0 ? new Date(nextAt).toISOString() : null,
      leased: state.fields.lease !== undefined,
      parked: state.fields.parked === '1' ? (state.fields.park_reason ?? 'parked') : null,
    },
  };
}
