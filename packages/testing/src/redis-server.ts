import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '@crawler/adapters/redis';

/** A redis-server of a test's own: its URL, and `stop()` (which also removes its folder). */
export interface TestRedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a redis-server (from PATH) on a free loopback port, in a temporary folder of its own
 * (where an AOF or RDB file goes), with extra `args` such as `--appendonly yes`; resolves once it
 * answers.
 */
export async function startTestRedisServer(args: string[] = []): Promise<TestRedisServer> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), 'test-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...args],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && child.exitCode === null; i++) {
    await sleep(100);
    // A bare TCP connect first: a Redis client refused would log its error event.
    if (!(await listening(port))) continue;
    (await connectRedis(url)).disconnect();
    return { url, stop };
  }
  await stop();
  throw new Error(`redis-server ${args.join(' ')} did not start on port ${port}`);
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
