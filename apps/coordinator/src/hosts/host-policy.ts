import { normalizeUrl } from '@crawler/shared/url';
import type { Frontier } from '@crawler/frontier';
import type { HostPolicyRepository, HostPolicyRow } from '../db/host-policy-repository';
import { AppError } from '../api/app-error';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { Store } from '../db/store';
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
 * Sets a host's policy: written to Postgres (the record) with its audit entry in one
 * transaction, then into the frontier, where the next lease of the host uses it. Blocking takes
 * the host out of the ready set at once.
 */
export async function setHostPolicy(
  deps: { store: Store; frontier: Frontier },
  actor: Actor,
  rawHost: string,
  rawPatch: HostPolicyPatch,
): Promise<HostPolicyRow> {
  const host = canonicalHost(rawHost);
  const patch = hostPolicyPatch.parse(rawPatch);
  const row = await deps.store.transaction(async (r) => {
    const before = await r.policies.getLocked(host);
    const after = await r.policies.upsert(host, {
      ...(patch.rate_limit_rps !== undefined ? { rateLimitRps: patch.rate_limit_rps } : {}),
      ...(patch.blocked !== undefined ? { blocked: patch.blocked } : {}),
    });
    await r.audit.record(
      auditEntry(actor, 'hosts.update', host, before && policyAudit(before), policyAudit(after)),
    );
    return after;
  });
  await pushPolicy(deps.frontier, row);
  return row;
}

function policyAudit(row: HostPolicyRow) {
  return { rate_limit_rps: row.rateLimitRps, blocked: row.blocked };
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
  const base = await hostBase(deps, host);
  if (!base.known) throw new AppError('NOT_FOUND', `host ${host} is not known`);
  return base.view;
}

/** Policy and frontier state of a canonical host; `known` is false when neither has it. */
export async function hostBase(deps: Deps, host: string) {
  const [policy, state] = await Promise.all([
    deps.policies.get(host),
    deps.frontier.hostState(host),
  ]);
  const nextAt = Number(state.fields.next_at ?? 0);
  return {
    known: policy !== null || Object.keys(state.fields).length > 0,
    view: {
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
    },
  };
}
