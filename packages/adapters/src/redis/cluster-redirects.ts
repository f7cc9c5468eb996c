import { setTimeout as sleep } from 'node:timers/promises';
import { redisErrorCode } from './redis-error-code';

/** Replies that send a command to another node (a slot moving or just moved). */
const REDIRECT_CODES = new Set(['MOVED', 'ASK', 'TRYAGAIN', 'CLUSTERDOWN']);

/**
 * True for an error a Redis Cluster client can meet while a slot moves or just moved, which the
 * same call, sent again a moment later, gets past: a redirect reply (MOVED, ASK, TRYAGAIN,
 * CLUSTERDOWN), or ioredis refusing an auto-pipeline whose commands its slot map, refreshed
 * between batching and sending, now puts on different nodes ("All keys in the pipeline should
 * belong to the same slots allocation group").
 */
export function isClusterRedirect(err: unknown): boolean {
  if (REDIRECT_CODES.has(redisErrorCode(err) ?? '')) return true;
  return err instanceof Error && err.message.includes('slots allocation group');
}

/**
 * Runs `call` (which must be safe to repeat) and runs it again while it fails with a
 * {@link isClusterRedirect} error, `attempts` times in all, `waitMs` apart; other errors, and
 * the last redirect, are thrown.
 */
export async function retryClusterRedirects<T>(
  call: () => Promise<T>,
  opts: { attempts?: number; waitMs?: number } = {},
): Promise<T> {
  const attempts = opts.attempts ?? 5;
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i >= attempts || !isClusterRedirect(err)) throw err;
      await sleep(opts.waitMs ?? 200);
    }
  }
}
