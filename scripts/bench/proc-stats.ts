import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerS: number | undefined;

/** Clock ticks per second of /proc CPU times (`getconf CLK_TCK`, 100 on Linux nearly always). */
export function clockTicksPerS(): number {
  if (ticksPerS === undefined) {
    try {
      ticksPerS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerS = 100;
    }
  }
  return ticksPerS;
}

/**
 * User + system CPU of a process so far, in ms: all its threads (worker threads included, and
 * threads that already ended), from /proc/<pid>/stat. Resolution is one clock tick (10 ms).
 */
export function processCpuMs(pid: number): number {
  return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU of this process's children that ended and were waited for, in ms (cutime + cstime): a
 * process's agents, read once they have exited.
 */
export function reapedChildrenCpuMs(pid: number): number {
  const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicksPerS(); // fields 16, 17
}

function statFields(stat: string): string[] {
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function cpuMsOfStat(stat: string): number {
  const fields = statFields(stat);
  const utime = Number(fields[11]); // field 14
  const stime = Number(fields[12]); // field 15
  return ((utime + stime) * 1000) / clockTicksPerS();
}

/** Current and peak resident memory of a process, in MB (VmRSS and VmHWM of /proc/<pid>/status). */
export function processMemoryMb(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** CPU of each thread of a process so far (thread id → ms); the main thread's id is the pid. */
export function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), cpuMsOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/**
 * CPU used between two {@link threadCpuMs} samples: the main thread, the busiest other thread
 * (in the agent, its parse worker) and the rest (GC helpers, libuv pool, …), in ms.
 */
export function threadCpuSplit(
  pid: number,
  before: Map<number, number>,
  after: Map<number, number>,
): { mainMs: number; busiestOtherMs: number; restMs: number } {
  let mainMs = 0;
  const others: number[] = [];
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === pid) mainMs = used;
    else others.push(used);
  }
  others.sort((a, b) => b - a);
  const busiestOtherMs = others[0] ?? 0;
  return { mainMs, busiestOtherMs, restMs: others.reduce((a, b) => a + b, 0) - busiestOtherMs };
}

/** Busy and total CPU time of the whole machine so far, in clock ticks (first line of /proc/stat). */
export function machineCpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}
