import { MAX_BLOCK_PATTERNS_PER_POLICY, MAX_BLOCK_PATTERNS_TOTAL } from '@crawler/domain/traps';
import { AppError } from '../api/app-error';
import { auditEntry, type Actor, type AuditAction } from '../audit/audit-entry';
import type { AuditWrite } from '../db/audit-repository';
import type { HostPolicyRow } from '../db/host-policy-repository';
import type { Repos, Store } from '../db/store';
import { suffixesOf, suffixOfPattern } from './effective-policy';
import { canonicalHost } from './host-policy';
import {
  blockPatternInput,
  removeBlockPatternQuery,
  type BlockPatternsOutput,
  type BlockRulesOutput,
} from './block-patterns.types';
import {
  buildBlockRuleSet,
  publishBlockRules,
  publishedBlockRules,
  type BlockRulesDeps,
} from './publish-block-rules';

/** `GET /v1/hosts/{host}/block-patterns`: a host's or pattern's own patterns and inherited ones. */
export async function listBlockPatterns(
  deps: { store: Store },
  rawHost: string,
): Promise<BlockPatternsOutput> {
  const host = canonicalHost(rawHost);
  const suffix = suffixOfPattern(host);
  // The `*.suffix` rows that cover it: for `*.a.example.com`, `*.example.com` and `*.com`.
  const covering = suffixesOf(suffix ?? host)
    .map((s) => `*.${s}`)
    .filter((p) => p !== host);
  const [own, inherited] = await Promise.all([
    deps.store.blockPatterns.listFor(host),
    deps.store.blockPatterns.listForMany(covering),
  ]);
  return {
    host,
    kind: suffix === null ? 'host' : 'suffix',
    patterns: own.map((p) => ({ pattern: p.pattern, created_at: p.createdAt.toISOString() })),
    inherited: inherited
      .sort((a, b) => b.host.length - a.host.length)
      .map((p) => ({ from: p.host, pattern: p.pattern })),
  };
}

/** A change of the patterns of a host (`rawHost`, any spelling) by `actor`, `raw` its input. */
type PatternChange = (
  deps: BlockRulesDeps,
  actor: Actor,
  rawHost: string,
  raw: unknown,
) => Promise<BlockPatternsOutput>;

/**
 * `POST /v1/hosts/{host}/block-patterns` (operator): adds a URL block pattern to the policy of a
 * host or of `*.example.com` (creating an empty policy when there is none), with its audit entry
 * in the same transaction, then publishes the rule set: agents drop matching links at enqueue
 * within about 2 s, and skip queued matching URLs when they lease them. Adding a pattern that
 * is there already changes nothing (`changed: false`, no audit entry).
 */
export const addBlockPattern: PatternChange = async (deps, actor, rawHost, raw) => {
  const host = canonicalHost(rawHost);
  const { pattern } = blockPatternInput.parse(raw);
  const changed = await changePatterns(deps, host, async (r, before, policy) => {
    if (before.includes(pattern)) return false;
    if (before.length >= MAX_BLOCK_PATTERNS_PER_POLICY)
      throw new AppError(
        'BAD_REQUEST',
        `pattern: ${host} has ${before.length} block patterns, the most one policy may have; remove one first`,
      );
    const total = await r.blockPatterns.countAll();
    if (total >= MAX_BLOCK_PATTERNS_TOTAL)
      throw new AppError(
        'BAD_REQUEST',
        `pattern: the crawl has ${total} block patterns, the most agents hold; remove some first`,
      );
    if (!policy) await r.policies.upsert(host, {});
    await r.blockPatterns.add(host, pattern);
    await r.audit.record(
      patternsAudit(actor, 'hosts.addBlockPattern', host, before, [...before, pattern]),
    );
    return true;
  });
  if (changed) await publishBlockRules(deps);
  return { ...(await listBlockPatterns(deps, host)), changed };
};

/**
 * `DELETE /v1/hosts/{host}/block-patterns?pattern=…` (operator): removes a pattern (written in
 * any spelling of its canonical form), audited, then publishes the rule set. 404 when the policy
 * has no such pattern (the message lists the ones it has).
 */
export const removeBlockPattern: PatternChange = async (deps, actor, rawHost, raw) => {
  const host = canonicalHost(rawHost);
  const { pattern } = removeBlockPatternQuery.parse(raw);
  await changePatterns(deps, host, async (r, before) => {
    if (!(await r.blockPatterns.remove(host, pattern)))
      throw new AppError(
        'NOT_FOUND',
        `${host} has no block pattern ${pattern}${
          before.length > 0 ? `; its patterns: ${before.join(' ')}` : ''
        }`,
      );
    const after = before.filter((p) => p !== pattern);
    await r.audit.record(patternsAudit(actor, 'hosts.removeBlockPattern', host, before, after));
  });
  await publishBlockRules(deps);
  return { ...(await listBlockPatterns(deps, host)), changed: true };
};

/** `GET /v1/block-rules`: every rule agents apply, from Postgres, with the version they see. */
export async function listBlockRules(deps: BlockRulesDeps): Promise<BlockRulesOutput> {
  const [policies, patterns, published] = await Promise.all([
    deps.store.policies.listAll(),
    deps.store.blockPatterns.listAll(),
    publishedBlockRules(deps.redis, deps.prefix),
  ]);
  const set = buildBlockRuleSet(policies, patterns, new Date());
  return {
    version: published.version,
    published_at: published.publishedAt,
    rules: set.rules,
    pattern_count: patterns.length,
    max_patterns: MAX_BLOCK_PATTERNS_TOTAL,
  };
}

/**
 * Runs one change of a host's patterns in a transaction that first locks the host's policy (its
 * row, if any, read) and the rule set, then reads the patterns before the change: concurrent
 * changes of one host, and the crawl-wide count, are serialized.
 */
async function changePatterns<T>(
  deps: { store: Store },
  host: string,
  change: (r: Repos, before: string[], policy: HostPolicyRow | null) => Promise<T>,
): Promise<T> {
  return deps.store.transaction(async (r) => {
    const policy = await r.policies.getLocked(host);
    await r.blockPatterns.lockRuleSet();
    const before = (await r.blockPatterns.listFor(host)).map((p) => p.pattern);
    return change(r, before, policy);
  });
}

/** The audit entry of a change of `host`'s patterns. */
function patternsAudit(
  actor: Actor,
  action: AuditAction,
  host: string,
  before: string[],
  after: string[],
): AuditWrite {
  return auditEntry(actor, action, host, { block_patterns: before }, { block_patterns: after });
}
