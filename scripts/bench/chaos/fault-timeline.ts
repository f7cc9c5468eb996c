import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosOptions } from './chaos-options';
import type { ChaosStack } from './chaos-stack';
import type { StallMonitor } from './stall-monitor';
import { seededRandom } from '@crawler/domain/random';
import { targetPath } from '../measure-child';

/** What the faults did, for the result line. */
export interface FaultCounts {
  agentKills: number;
  coordinatorKills: number;
  redisRestarts: number;
  diskFaults: number;
  /** Sum of `crawler_urls_in_flight` read from each killed agent right before its SIGKILL. */
  inFlightAtKills: number;
  /** Kills whose gauge could not be read (counted as 0). */
  inFlightUnread: number;
  /**
   * Each agent kill's window between asking for the gauge and the SIGKILL (epoch ms, the request
   * log's clock) and the hosts the killed agent held: a request it started in that window is in
   * flight at the kill but not in the gauge read (startedAfterRead).
   */
  killWindows: KillWindow[];
}

export interface KillWindow {
  fromMs: number;
  toMs: number;
  /** 'all' when Redis did not say which (every host is one the agent may have held). */
  hosts: ReadonlySet<string> | 'all';
}

/** Epoch ms on the synthetic web's request-log clock. */
const epochMs = (): number => performance.timeOrigin + performance.now();

/** Requests (not robots.txt) on a killed agent's hosts that started in its kill window. */
export function startedAfterRead(
  log: readonly { host: string; target: string; startMs: number }[],
  windows: readonly KillWindow[],
): number {
  let n = 0;
  for (const w of windows)
    for (const e of log)
      if (
        (w.hosts === 'all' || w.hosts.has(e.host)) &&
        e.startMs >= w.fromMs &&
        e.startMs <= w.toMs &&
        targetPath(e.target) !== '/robots.txt'
      )
        n++;
  return n;
}

interface FaultEvent {
  atS: number;
  name: string;
  run(): Promise<string>;
}

function events(
  o: ChaosOptions,
  s: ChaosStack,
  stalls: StallMonitor,
  c: FaultCounts,
): FaultEvent[] {
  const random = seededRandom(o.seed);
  const list: FaultEvent[] = [];
  for (let t = o.agentKillEveryS; t < o.seconds; t += o.agentKillEveryS) {
    list.push({
      atS: t,
      name: 'agent kill',
      async run() {
        const slot = s.slots[Math.floor(random() * s.slots.length)]!;
        const fromMs = epochMs();
        const inFlight = await slot.urlsInFlight();
        await slot.crash();
        const toMs = epochMs();
        const held = await stalls.noteKilledAgent(slot.id).catch(() => null);
        slot.start();
        c.agentKills++;
        c.inFlightAtKills += inFlight ?? 0;
        if (inFlight === null) c.inFlightUnread++;
        c.killWindows.push({ fromMs, toMs, hosts: held ? new Set(held) : 'all' });
        return `SIGKILL ${slot.id} (${inFlight ?? '?'} URLs in flight, ${held?.length ?? '?'} leases held); a new one started in its slot`;
      },
    });
  }
  for (const t of o.coordinatorKillsAtS)
    list.push({
      atS: t,
      name: 'coordinator kill',
      async run() {
        const t0 = performance.now();
        await s.coordinator.crash();
        await s.coordinator.start();
        c.coordinatorKills++;
        return `SIGKILL coordinator; restarted, answering after ${((performance.now() - t0) / 1000).toFixed(1)} s`;
      },
    });
  for (const t of o.redisRestartsAtS)
    list.push({
      atS: t,
      name: 'redis restart',
      async run() {
        const { downMs } = await s.redisProcess.crashAndRestart(1000);
        c.redisRestarts++;
        return `SIGKILL redis-server; started again on its AOF, down ${(downMs / 1000).toFixed(1)} s`;
      },
    });
  const fault = o.diskFault;
  const disk = s.disk;
  if (fault && disk) {
    const slot = s.slots[0]!;
    list.push({
      atS: fault.atS,
      name: 'disk full',
      async run() {
        const bytes = await disk.fill();
        c.diskFaults++;
        await sleep(3000);
        const health = await fetch(`http://127.0.0.1:${slot.metricsPort}/healthz`)
          .then(async (r) => `${r.status} ${await r.text()}`)
          .catch((err: unknown) => String(err));
        return `${slot.id}'s WARC folder full (${(bytes / 1048576).toFixed(1)} MB filler); its /healthz 3 s later: ${health}`;
      },
    });
    list.push({
      atS: fault.atS + fault.forS,
      name: 'disk freed',
      async run() {
        await disk.free();
        return `${slot.id}'s WARC folder has room again`;
      },
    });
  }
  return list.sort((a, b) => a.atS - b.atS);
}

/**
 * Runs the faults at their times from `t0` (performance.now() ms), one after another (one that
 * takes long delays the next; each line says when it really ran), and returns at `o.seconds`.
 */
export async function runFaults(
  o: ChaosOptions,
  s: ChaosStack,
  stalls: StallMonitor,
  t0: number,
  log: (line: string) => void,
): Promise<FaultCounts> {
  const counts: FaultCounts = {
    agentKills: 0,
    coordinatorKills: 0,
    redisRestarts: 0,
    diskFaults: 0,
    inFlightAtKills: 0,
    inFlightUnread: 0,
    killWindows: [],
  };
  const at = (): string => `[${((performance.now() - t0) / 1000).toFixed(1)}s]`;
  for (const e of events(o, s, stalls, counts)) {
    const wait = t0 + e.atS * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    try {
      log(`${at()} ${e.name}: ${await e.run()}`);
    } catch (err) {
      log(`${at()} ${e.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const rest = t0 + o.seconds * 1000 - performance.now();
  if (rest > 0) await sleep(rest);
  return counts;
}
