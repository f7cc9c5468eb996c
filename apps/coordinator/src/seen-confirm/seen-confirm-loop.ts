import type { Logger } from '@crawler/adapters/log';
import {
  confirmSeenCandidates,
  type ConfirmRoundDeps,
  type ConfirmRoundOptions,
  emptyReport,
  type ConfirmRoundReport,
} from './confirm-round';

/** Candidates per shard per round. */
const PER_SHARD = 1000;
/** Entries of a host's lists read at most when looking for a candidate (a few ms of Redis). */
const SCAN_MAX = 2000;
/** How long a round waits for the telemetry ingest before leaving its candidates seen. */
const INGEST_WAIT_MS = 60_000;

/**
 * The seen set's confirmation (FRONTIER_SEEN_CONFIRM_MAX > 0): rounds of
 * {@link confirmSeenCandidates}, back to back while they find candidates, then every `everyMs`.
 * Totals since start are in `totals` (and in the log, per round that did something).
 */
export class SeenConfirmLoop {
  private stopped = new AbortController();
  private running: Promise<void> | null = null;
  /** What every round did, summed. */
  readonly totals: ConfirmRoundReport = emptyReport();

  constructor(
    private readonly deps: ConfirmRoundDeps & { log: Logger },
    private readonly opts: Partial<Omit<ConfirmRoundOptions, 'signal'>> = {},
  ) {}

  /** Starts the rounds in the background. */
  start(everyMs: number): void {
    if (this.running) return;
    this.running = this.loop(everyMs);
  }

  /** Stops after the round under way. */
  async stop(): Promise<void> {
    this.stopped.abort();
    await this.running;
    this.running = null;
  }

  /** Runs one round now. */
  async runOnce(): Promise<ConfirmRoundReport> {
    const report = await confirmSeenCandidates(this.deps, {
      perShard: this.opts.perShard ?? PER_SHARD,
      scanMax: this.opts.scanMax ?? SCAN_MAX,
      ingestWaitMs: this.opts.ingestWaitMs ?? INGEST_WAIT_MS,
      signal: this.stopped.signal,
    });
    for (const k of Object.keys(report) as (keyof ConfirmRoundReport)[])
      this.totals[k] += report[k];
    if (report.taken > 0) this.deps.log.info(report, 'seen set: maybe-seen URLs checked');
    return report;
  }

  private async loop(everyMs: number): Promise<void> {
    const signal = this.stopped.signal;
    while (!signal.aborted) {
      let found = false;
      try {
        found = (await this.runOnce()).taken > 0;
      } catch (err) {
        this.deps.log.warn({ err }, 'seen set: confirmation round failed');
      }
      if (!found && !signal.aborted) await pause(everyMs, signal);
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    t.unref();
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
