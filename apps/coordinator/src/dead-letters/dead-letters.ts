import type { Frontier } from '@crawler/frontier';
import { canonicalHost } from '../hosts/host-policy';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { Store } from '../db/store';
import { listDeadLettersInput, requeueDeadLettersInput } from './dead-letters.types';

/**
 * URLs that kept failing (or whose host's robots.txt did), with their last error: all, or one
 * host's; paginated by `next_cursor`.
 */
export async function listDeadLetters(deps: { frontier: Frontier }, raw: unknown) {
  const input = listDeadLettersInput.parse(raw);
  const [shard, offset] = (input.cursor ?? '').split(':').map(Number);
  const page = await deps.frontier.deadLetterPage({
    limit: input.limit,
    ...(input.host ? { host: canonicalHost(input.host) } : {}),
    ...(input.cursor ? { from: { shard: shard!, offset: offset! } } : {}),
  });
  return {
    next_cursor: page.next ? `${page.next.shard}:${page.next.offset}` : null,
    items: page.items.map((d) => ({
      url: d.url,
      host: d.host,
      reason: d.reason,
      attempts: d.attempts,
      parked_at: new Date(d.at).toISOString(),
    })),
    total: (await deps.frontier.stats()).deadLetters,
  };
}

/**
 * Puts dead letters back into their hosts' queues (attempts reset, hosts un-parked). The
 * change is in Redis, so its audit entry is written after it, not in the same transaction.
 */
export async function requeueDeadLetters(
  deps: { frontier: Frontier; store: Store },
  actor: Actor,
  raw: unknown,
) {
  const input = requeueDeadLettersInput.parse(raw);
  const host = input.host ? canonicalHost(input.host) : undefined;
  const requeued = await deps.frontier.requeueDeadLetters({
    limit: input.limit,
    ...(host ? { host } : {}),
  });
  await deps.store.audit.record(
    auditEntry(actor, 'deadLetters.requeue', host ?? null, null, { limit: input.limit, requeued }),
  );
  return { requeued };
}
