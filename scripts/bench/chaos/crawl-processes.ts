import { join } from 'node:path';
import { processMemoryMb } from '../proc-stats';
import { killChild, spawnChild, stopChild, waitForHttp, type Child } from './child-process';

/** pino's numeric levels: show warnings and errors of the children, not their info lines. */
function echoLine(line: string): boolean {
  const level = /^\{"level":(\d+)/.exec(line)?.[1];
  return level === undefined || Number(level) >= 40;
}

/** Peak resident memory (VmHWM) of a process now, in MB; 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    return processMemoryMb(pid).peakRssMb;
  } catch {
    return 0;
  }
}

/** The coordinator as a process of its own (`node apps/coordinator/dist/main.js`). */
export class CoordinatorProcess {
  private child: Child | null = null;

  constructor(
    private readonly root: string,
    private readonly env: NodeJS.ProcessEnv,
    readonly url: string,
  ) {}

  /** Starts it and waits until `/healthz` answers. */
  async start(timeoutMs = 120_000): Promise<void> {
    this.child = spawnChild(
      'coordinator',
      process.execPath,
      ['--enable-source-maps', join(this.root, 'apps/coordinator/dist/main.js')],
      { cwd: this.root, env: this.env, echo: echoLine },
    );
    await waitForHttp(this.child, `${this.url}/healthz`, timeoutMs);
  }

  async crash(): Promise<void> {
    if (this.child) await killChild(this.child);
  }

  /** SIGSTOP: frozen as a hung process is (its ingest, API and timers), connections kept. */
  pause(): void {
    if (this.child?.alive()) this.child.process.kill('SIGSTOP');
  }

  /** SIGCONT after {@link pause}, then waits until `/healthz` answers again. */
  async resume(timeoutMs = 60_000): Promise<void> {
    if (!this.child) return;
    this.child.process.kill('SIGCONT');
    await waitForHttp(this.child, `${this.url}/healthz`, timeoutMs);
  }

  async stop(graceMs = 30_000): Promise<{ clean: boolean; ms: number }> {
    if (!this.child) return { clean: true, ms: 0 };
    const r = await stopChild(this.child, graceMs);
    return { clean: r.clean && r.code === 0, ms: r.ms };
  }
}

/**
 * One agent slot: an id, a DATA_DIR and a metrics port that every agent started in it keeps, so
 * a replacement ships what a killed predecessor left in the WARC folder.
 */
export class AgentSlot {
  private child: Child | null = null;
  /** Highest VmHWM seen of any agent of this slot (MB). */
  peakRssMb = 0;

  constructor(
    private readonly root: string,
    readonly id: string,
    readonly dataDir: string,
    readonly metricsPort: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): void {
    this.child = spawnChild(
      this.id,
      process.execPath,
      ['--enable-source-maps', join(this.root, 'apps/agent/dist/main.js')],
      {
        cwd: this.root,
        env: {
          ...this.env,
          AGENT_ID: this.id,
          MALLOC_MMAP_THRESHOLD_: '131072',
          DATA_DIR: this.dataDir,
          AGENT_METRICS_PORT: String(this.metricsPort),
        },
        echo: echoLine,
      },
    );
  }

  alive(): boolean {
    return this.child?.alive() ?? false;
  }

  /** Waits until its `/healthz` answers (200, or 503 while its WARC writes fail). */
  async waitUp(timeoutMs = 60_000): Promise<void> {
    if (!this.child) throw new Error(`${this.id} not started`);
    await waitForHttp(this.child, `http://127.0.0.1:${this.metricsPort}/healthz`, timeoutMs, (s) =>
      [200, 503].includes(s),
    );
  }

  /** Samples the running agent's peak RSS into {@link peakRssMb}. */
  sampleRss(): void {
    if (this.child?.alive()) this.peakRssMb = Math.max(this.peakRssMb, peakRssMb(this.child.pid));
  }

  /**
   * The agent's `crawler_urls_in_flight` gauge: URLs a kill now could make the crawl fetch again
   * (requests in flight, done URLs whose progress is not yet in the frontier). Null when its
   * /metrics does not answer (tried three times).
   */
  async urlsInFlight(): Promise<number | null> {
    for (let i = 0; i < 3; i++) {
      try {
        const r = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`, {
          signal: AbortSignal.timeout(1500),
        });
        const text = await r.text();
        const v = /^crawler_urls_in_flight(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
        if (r.ok && v !== undefined) return Number(v);
      } catch {
        // retry
      }
    }
    return null;
  }

  /** SIGKILL: no drain, no shipping; what it held stays in its DATA_DIR and in the frontier. */
  async crash(): Promise<void> {
    if (!this.child) return;
    this.sampleRss();
    await killChild(this.child);
  }

  /** SIGTERM: it drains its leases and ships its WARC files. */
  async stop(graceMs: number): Promise<{ clean: boolean; ms: number }> {
    if (!this.child) return { clean: true, ms: 0 };
    this.sampleRss();
    const r = await stopChild(this.child, graceMs);
    return { clean: r.clean && r.code === 0, ms: r.ms };
  }
}
