import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A synthetic web serving in a child process (its CPU is never counted). */
export interface WebChild {
  port: number;
  /** Files written by `cli.ts serve`. */
  dnsMap: string;
  seeds: string;
  manifest: string;
  /** The web's JSON-lines request log (complete once `stop` resolved). */
  logPath: string;
  /** SIGTERM, then waits for the web to close its sockets and flush its log. */
  stop(): Promise<void>;
}

/** Starts `packages/synthetic-web/src/cli.ts serve` with a fresh log under `dir`. */
export async function startWebChild(opts: {
  root: string;
  hosts: number;
  seed: string;
  dir: string;
  /** More `serve` flags, e.g. `--no-hostile`, `--log-links`. */
  args?: string[];
  /** Flags of its `node` (e.g. `--cpu-prof`, to see what the web itself costs). */
  nodeArgs?: string[];
}): Promise<WebChild> {
  const logPath = join(opts.dir, 'requests.jsonl');
  const web = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      '--import',
      'tsx',
      'packages/synthetic-web/src/cli.ts',
      'serve',
      '--hosts',
      String(opts.hosts),
      '--seed',
      opts.seed,
      '--out',
      opts.dir,
      '--log',
      logPath,
      ...(opts.args ?? []),
    ],
    { cwd: opts.root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => web.once('exit', () => resolve()));
  const info = await new Promise<{ port: number; dnsMap: string; seeds: string; manifest: string }>(
    (resolve, reject) => {
      web.once('exit', (code) => reject(new Error(`synthetic web exited (${code})`)));
      createInterface({ input: web.stdout }).on('line', (line) => {
        if (line.startsWith('{'))
          resolve(
            JSON.parse(line) as { port: number; dnsMap: string; seeds: string; manifest: string },
          );
      });
    },
  );
  let stopped: Promise<void> | null = null;
  return {
    ...info,
    logPath,
    stop() {
      stopped ??= (async () => {
        if (web.exitCode === null && web.signalCode === null) web.kill('SIGTERM');
        await exited;
      })();
      return stopped;
    },
  };
}
