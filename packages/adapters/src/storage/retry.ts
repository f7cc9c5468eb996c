import { setTimeout as sleep } from 'node:timers/promises';
import { StorageError } from './storage-errors';

/** How often and how patiently a request is retried. */
export interface RetryPolicy {
  /** Tries in all, counting the first. */
  maxAttempts: number;
  /** Cap of the first retry's delay in ms; doubled per retry. */
  baseDelayMs: number;
  /** Upper bound of any delay in ms. */
  maxDelayMs: number;
}

/** A failure as the retry loop sees it. */
export interface ClassifiedError {
  error: StorageError;
  /** Worth another try (5xx, throttling, network). */
  retryable: boolean;
}

/**
 * Runs `op` until it succeeds, a failure is not retryable, or `maxAttempts` tries have failed;
 * then throws the last failure's StorageError. Delays use "full jitter": a uniform random wait
 * below `min(maxDelayMs, baseDelayMs × 2^(retry − 1))`, which spreads agents that were throttled
 * together instead of retrying in lockstep.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  classify: (err: unknown) => ClassifiedError,
  op: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      const { error, retryable } = classify(err);
      if (!retryable || attempt >= policy.maxAttempts) {
        if (retryable && attempt > 1) error.message += ` (after ${attempt} attempts)`;
        throw error;
      }
      const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.random() * cap);
    }
  }
}
