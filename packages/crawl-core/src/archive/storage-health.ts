import type { Logger } from '@crawler/adapters/log';
import type { WarcWriterHealth } from '@crawler/adapters/warc';

/**
 * What the agent's `GET /healthz` says: ok, or why not. While WARC writes fail (disk full, I/O
 * errors) the agent leases no new host and answers 503 with the error, until its writer has
 * opened a new file (it tries every few seconds).
 */
export type AgentHealth =
  | { ok: true }
  | {
      ok: false;
      reason: 'warc_write_failed';
      /** errno code of the latest failure, e.g. `ENOSPC`. */
      error: string;
      message: string;
      /** ISO time writes started failing. */
      since: string;
    };

export function agentHealth(warc: WarcWriterHealth): AgentHealth {
  if (warc.ok) return { ok: true };
  return {
    ok: false,
    reason: 'warc_write_failed',
    error: warc.code,
    message: warc.message,
    since: warc.since.toISOString(),
  };
}

/** For `WarcWriterOptions.onHealthChange`: logs when writes start failing and when they work again. */
export function logWarcHealth(log: Logger): (health: WarcWriterHealth) => void {
  return (h) => {
    if (h.ok) log.info('WARC writes work again; leasing resumes');
    else
      log.error(
        { error: h.code, message: h.message },
        'WARC writes fail; no new leases until a new file can be written',
      );
  };
}
