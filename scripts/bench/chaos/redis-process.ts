import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort, killChild, spawnChild, stopChild, type Child } from './child-process';

/**
 * The bench's own redis-server on a free loopback port, persisting as production does (an
 * append-only file, fsync every second, no RDB snapshots) into a folder of its own, so that a
 * SIGKILL and a restart on the same folder and port is what a crashed Redis host does.
 */
export class RedisProcess {
  private child: Child | null = null;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(dir: string): Promise<RedisProcess> {
    mkdirSync(dir, { recursive: true });
    const r = new RedisProcess(await freePort(), dir);
    await r.launch();
    return r;
  }

  private async launch(): Promise<void> {
    this.child = spawnChild(
      'redis',
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--dir',
        this.dir,
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { cwd: this.dir, env: process.env, echo: (l) => / # /.test(l) },
    );
    // Up once it answers PING (while it loads the AOF it answers LOADING).
    const until = performance.now() + 30_000;
    for (;;) {
      if (!this.child.alive())
        throw new Error(`redis-server exited while starting:\n${this.child.tail().join('\n')}`);
      const probe = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        connectTimeout: 500,
      });
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // not up yet, or loading
      } finally {
        probe.disconnect();
      }
      if (performance.now() > until) throw new Error('redis-server did not come up in 30 s');
      await sleep(100);
    }
  }

  /** SIGKILL (no shutdown save), then starts it again on the same folder and port. */
  async crashAndRestart(downMs: number): Promise<{ downMs: number }> {
    const t0 = performance.now();
    if (this.child) await killChild(this.child);
    await sleep(downMs);
    await this.launch();
    return { downMs: performance.now() - t0 };
  }

  /** INFO memory's used_memory, in MB. */
  async usedMemoryMb(): Promise<number> {
    const c = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await c.connect();
      const info = await c.info('memory');
      return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0) / (1024 * 1024);
    } finally {
      c.disconnect();
    }
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child, 5000);
    this.child = null;
  }
}
