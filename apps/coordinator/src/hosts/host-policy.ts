import { normalizeUrl } from '@crawler/shared/url';
import type { Frontier } from '@crawler/frontier';
import type { HostPolicyRepository, HostPolicyRow } from '../db/host-policy-repository';
import { AppError } from '../api/app-error';
import { hostName, hostPolicyPatch, type HostPolicyPatch } from './host-policy.types';

type Deps = { policies: HostPolicyRepository; frontier: Frontier; defaultGapMs: number };

/** The canonical form of a host name (lowercase, punycode), or a 400. */
export function canonicalHost(raw: string): string {
  const parsed = hostName.safeParse(raw);
  const n = parsed.success ? normalizeUrl(`http://${raw}/`) : null;
  if (!n?.ok) throw new AppError('BAD_REQUEST', `host: "${raw}" is not a valid host name`);
  return n.host;
}

/**
 * Sets a host's policy: written to Postgres (the record), then into the frontier, where the
 * next lease of the host uses it. Blocking takes the host out of the ready set at once.
 */
export async function setHostPolicy(
  deps: Deps,
  rawHost: string,
  rawPatch: HostPolicyPatch,
): Promise<HostPolicyRow> {
  const host = canonicalHost(rawHost);
  const patch = hostPolicyPatch.parse(rawPatch);
  const row = await deps.policies.upsert(host, {
    ...(patch.rate_limit_rps !== undefined ? { rateLimitRps: patch.rate_limit_rps } : {}),
    ...(patch.blocked !== undefined ? { blocked: patch.blocked } : {}),
  });
  await pushPolicy(deps.frontier, row);
  return row;
}

/** Writes a stored policy into the frontier (also used at start-up to resync every host). */
export async function pushPolicy(frontier: Frontier, row: HostPolicyRow): Promise<void> {
  await frontier.setHostPolicy(row.host, {
    gapMs: row.rateLimitRps ? 1000 / row.rateLimitRps : null,
    blocked: row.blocked,
  });
}

/** A host as the API shows it: policy and frontier state. */
export async function getHost(deps: Deps, rawHost: string) {
  const host = canonicalHost(rawHost);
  const [policy, state] = await Promise.all([
    deps.policies.get(host),
    deps.frontier.hostState(host),
  ]);
  if (!policy && Object.keys(state.fields).length === 0)
    throw new AppError('NOT_FOUND', `host ${host} is not known`);
  const nextAt = Number(state.fields.next_at ?? 0);
  return {
    host,
    policy: {
      rate_limit_rps: policy?.rateLimitRps ?? null,
      blocked: policy?.blocked ?? false,
      effective_gap_ms: policy?.rateLimitRps ? 1000 / policy.rateLimitRps : deps.defaultGapMs,
    },
    queue_length: state.queued,
    next_allowed_at: nextAt > 0 ? new Date(nextAt).toISOString() : null,
    leased: state.fields.lease !== undefined,
    parked: state.fields.parked === '1' ? (state.fields.park_reason ?? 'parked') : null,
  };
}
