import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AgentCounters } from '@crawler/crawl-core';
import type { Config } from '@crawler/domain/config';
import type { Logger } from '@crawler/adapters/log';
import { zeroCounters } from '@crawler/crawl-core';
import { fromAgentSchema, sumCounters, type ToAgent } from './one-shot-agent-messages';

/**
 * Agent processes a one-shot crawl runs unless told: AGENT_PROCESSES, else half the cores, at
 * least one — as `npm start` (one agent at full speed keeps about 1.5 cores busy: its event
 * loop and its parse thread).
 */
export function defaultAgentProcesses(config: Config): number {
  return config.AGENT_PROCESSES ?? Math.max(1, Math.floor(availableParallelism() / 2));
}

/** How long an agent may take to connect and start (ms). */
const START_TIMEOUT_MS = 60_000;

/**
 * The agent process's entry beside this module: compiled (`dist/one-shot-agent.js`, beside
 * `dist/cli.js`) or, when the crawl itself runs from source, the TypeScript file through tsx.
 */
function agentEntry(): { path: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    return {
      path: fileURLToPath(new URL('./one-shot-agent.ts', here)),
      execArgv: ['--import', tsx],
    };
  }
  return { path: fileURLToPath(new URL('./one-shot-agent.js', here)), execArgv: [] };
}

interface Member {
  id: string;
  child: ChildProcess;
  counters: AgentCounters;
  activeLeases: number;
  eventLoopUtilization: number;
  /** The agent drained and said so. */
  stopped: boolean;
  exited: Promise<number | null>;
}

/**
 * A one-shot crawl's agents: `count` processes, so the crawl uses the machine's cores (each
 * agent has its own event loop and parse threads; politeness is the frontier's, fleet-wide, as
 * between `npm start`'s agents). Each gets the crawl's configuration with its own id
 * (`<crawl prefix>-<n>`) and a share of the parse threads. An agent that exits before it is
 * told to stop fails the crawl: its leases would come back only after their TTL, and its
 * counters would be lost.
 */
export class OneShotAgents {
  private readonly members: Member[] = [];
  private failure: Error | null = null;

  private constructor(private readonly log: Logger) {}

  static async start(
    config: Config,
    count: number,
    warcDir: string,
    log: Logger,
    env: NodeJS.ProcessEnv = process.env,
  ): Promise<OneShotAgents> {
    const agents = new OneShotAgents(log);
    const parseThreads =
      config.AGENT_PARSE_THREADS > 0
        ? config.AGENT_PARSE_THREADS
        : Math.max(1, Math.floor(availableParallelism() / count) - 1);
    try {
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          agents.spawn(
            {
              ...config,
              agentId: `${config.REDIS_PREFIX}-${i + 1}`,
              AGENT_PARSE_THREADS: parseThreads,
              AGENT_METRICS_PORT: 0,
              // The crawl's own log level (the CLI's LOG_LEVEL, warn by default).
              LOG_LEVEL: log.level as Config['LOG_LEVEL'],
            },
            warcDir,
            env,
          ),
        ),
      );
    } catch (err) {
      await agents.kill();
      // An agent that dies while the others start (one may already be fetching) stops the
      // crawl as one that dies later does, and says so the same way.
      throw new Error(`the crawl stopped: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    return agents;
  }

  /** The agents' counters added up (as last reported, ≤ 250 ms old). */
  get counters(): AgentCounters {
    return sumCounters(this.members.map((m) => m.counters));
  }

  /** Leases the agents hold (as last reported). */
  get activeLeases(): number {
    return this.members.reduce((n, m) => n + m.activeLeases, 0);
  }

  /** Each agent's event-loop utilization since it started (0–1; its drain included once stopped). */
  get eventLoopUtilization(): number[] {
    return this.members.map((m) => Math.round(m.eventLoopUtilization * 100) / 100);
  }

  /** Process ids of the agents (for a bench to measure). */
  get pids(): number[] {
    return this.members.flatMap((m) => (m.child.pid ? [m.child.pid] : []));
  }

  /** Why the crawl cannot go on (an agent failed or died), if so. */
  get failed(): Error | null {
    return this.failure;
  }

  /** Drains every agent (in-flight fetches finish, WARC files close) and waits for their exit. */
  async stop(): Promise<void> {
    for (const m of this.members) this.tell(m, { type: 'stop' });
    await Promise.all(this.members.map((m) => m.exited));
    const lost = this.members.filter((m) => !m.stopped).map((m) => m.id);
    if (lost.length > 0 && !this.failure)
      this.failure = new Error(`agent(s) ${lost.join(', ')} exited without draining`);
  }

  private async kill(): Promise<void> {
    for (const m of this.members) m.child.kill('SIGKILL');
    await Promise.all(this.members.map((m) => m.exited));
  }

  private tell(m: Member, msg: ToAgent): void {
    if (m.child.connected) m.child.send(msg);
  }

  private spawn(config: Config, warcDir: string, env: NodeJS.ProcessEnv): Promise<void> {
    const entry = agentEntry();
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      env,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const m: Member = {
      id: config.agentId,
      child,
      counters: zeroCounters(),
      activeLeases: 0,
      eventLoopUtilization: 0,
      stopped: false,
      exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    };
    this.members.push(m);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`agent ${m.id} did not start within ${START_TIMEOUT_MS / 1000} s`)),
        START_TIMEOUT_MS,
      );
      const settle = (err: Error | null) => {
        clearTimeout(timer);
        if (err) {
          this.failure ??= err;
          reject(err);
        } else resolve();
      };
      child.on('message', (raw) => {
        const parsed = fromAgentSchema.safeParse(raw);
        if (!parsed.success) {
          this.log.error({ agent: m.id, err: parsed.error.message }, 'bad message from an agent');
          return;
        }
        const msg = parsed.data;
        if (msg.type === 'started') settle(null);
        else if (msg.type === 'report') {
          m.counters = msg.counters;
          m.activeLeases = msg.activeLeases;
          m.eventLoopUtilization = msg.eventLoopUtilization;
        } else if (msg.type === 'stopped') {
          m.counters = msg.counters;
          m.eventLoopUtilization = msg.eventLoopUtilization;
          m.activeLeases = 0;
          m.stopped = true;
        } else settle(new Error(`agent ${m.id} failed: ${msg.message}`));
      });
      child.once('error', (err) => settle(err));
      void m.exited.then((code) => {
        if (!m.stopped) settle(new Error(`agent ${m.id} exited (code ${code}) before it drained`));
      });
      this.tell(m, { type: 'start', config, warcDir });
    });
  }
}
