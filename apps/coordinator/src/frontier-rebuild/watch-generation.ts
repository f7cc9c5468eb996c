import { readGenerationMarker } from './generation-marker';
import {
  startFrontierGeneration,
  type RebuildDeps,
  type StartupFrontier,
} from './rebuild-frontier';

/** A rebuild that failed is tried again after this long (ms), or at the next start. */
const RETRY_FAILED_REBUILD_MS = 5 * 60_000;

/**
 * Keeps the frontier's generation: at start, {@link startFrontierGeneration} (sync with Postgres,
 * rebuild in the background when the marker is missing); then a check of the marker every
 * `everyMs`, so a Redis emptied while the coordinator runs (a restart without persistence, a
 * failover to an empty replica) is rebuilt too, without waiting for the next start.
 */
export class GenerationWatch {
  private readonly stopper = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  /** When the latest rebuild failed (ms since the epoch), or 0. */
  private failedAt = 0;
  /** The rebuild in progress (or the start-up's), settled; never rejects. */
  private current: Promise<StartupFrontier> = Promise.resolve({ action: 'synced' });
  /** What start-up did with the frontier; settles when a start-up rebuild ends. */
  startup: Promise<StartupFrontier> = this.current;

  constructor(
    private readonly deps: RebuildDeps,
    /**
     * Called when the marker vanished while running, before the rebuild: the coordinator puts
     * back what else it keeps in Redis (its re-crawl sweep schedule).
     */
    private readonly onLost: () => Promise<void> = async () => undefined,
  ) {}

  /** Runs the start-up step (returns once Postgres is synced) and starts checking every `everyMs`. */
  async start(everyMs: number): Promise<void> {
    const { done } = await startFrontierGeneration(this.deps, this.stopper.signal);
    this.current = this.startup = this.track(done);
    if (everyMs > 0) this.timer = setInterval(() => void this.check(), everyMs).unref();
  }

  /**
   * Checks the marker now: when it is missing and no rebuild runs, brings the frontier back
   * (sync, then a rebuild in the background). Resolves when that ends; null if nothing was
   * needed (or a rebuild was already running).
   */
  async check(): Promise<StartupFrontier | null> {
    const { redis, frontier, log } = this.deps;
    if (this.checking || this.stopper.signal.aborted || (await isRunning(this.current)))
      return null;
    if (Date.now() - this.failedAt < RETRY_FAILED_REBUILD_MS) return null;
    this.checking = true;
    try {
      if (await readGenerationMarker(redis, frontier.keys)) return null;
      if (this.failedAt > 0) log.warn('trying the failed frontier rebuild again');
      else
        log.warn(
          'the frontier generation marker vanished while the coordinator runs: Redis was emptied',
        );
      await this.onLost();
      const { done } = await startFrontierGeneration(this.deps, this.stopper.signal);
      this.current = this.track(done);
      return await this.current;
    } catch (err) {
      // Redis unreachable for a moment, say: the next check tries again.
      if (!this.stopper.signal.aborted) log.warn({ err }, 'frontier generation check failed');
      return null;
    } finally {
      this.checking = false;
    }
  }

  /** Notes when a rebuild fails, so that it is not tried again at every check. */
  private track(done: Promise<StartupFrontier>): Promise<StartupFrontier> {
    return done.then((r) => {
      this.failedAt = r.action === 'rebuild_failed' ? Date.now() : 0;
      return r;
    });
  }

  /** Stops checking, and stops a rebuild in progress (its marker is then not written). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopper.abort();
    await this.current;
  }
}

/** Whether a promise is still pending (a settled one wins the race against a resolved one). */
async function isRunning(p: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  return (await Promise.race([p, Promise.resolve(pending)])) === pending;
}
