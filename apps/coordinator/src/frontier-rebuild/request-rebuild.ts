import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor } from '../audit/audit-entry';
import {
  frontierRebuildStatus,
  rebuildFrontier,
  recordRebuild,
  type RebuildDeps,
} from './rebuild-frontier';
import type { FrontierRebuildStatus } from './rebuild-frontier.types';

/** How long `POST /v1/frontier/rebuild` waits for the rebuild before answering `running`. */
const ANSWER_WITHIN_MS = 20_000;

/**
 * `POST /v1/frontier/rebuild` (admin): starts a rebuild and answers its status once it is done,
 * or after {@link ANSWER_WITHIN_MS} with `running` (a large crawl takes minutes, longer than
 * HTTP clients and proxies wait); `GET /v1/frontier/rebuild` then follows it. Audited when it
 * ends (a Redis change: after it, not in a Postgres transaction with it).
 * @throws AppError `CONFLICT` while a rebuild runs.
 */
export async function requestFrontierRebuild(
  deps: RebuildDeps,
  actor: Actor,
  waitMs = ANSWER_WITHIN_MS,
): Promise<FrontierRebuildStatus> {
  const run = rebuildFrontier(deps, 'manual');
  const recorded = run.then(
    async (report) => {
      deps.log.info({ ...report }, 'frontier rebuilt on request');
      await recordRebuild(deps.store, actor, report);
    },
    (err: unknown) => {
      // A refusal (one is running already) goes back to the caller; a failure is in the status.
      if (frontierRebuildStatus(deps.frontier).status !== 'failed') throw err;
      deps.log.error({ err }, 'frontier rebuild failed');
    },
  );
  const timer = new AbortController();
  await Promise.race([
    recorded,
    sleep(waitMs, undefined, { signal: timer.signal }).catch(() => undefined),
  ]);
  timer.abort();
  return frontierRebuildStatus(deps.frontier);
}

/** `GET /v1/frontier/rebuild` (admin): the latest rebuild of this coordinator. */
export function getFrontierRebuild(deps: Pick<RebuildDeps, 'frontier'>): FrontierRebuildStatus {
  return frontierRebuildStatus(deps.frontier);
}
