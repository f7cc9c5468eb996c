/**
 * Summarizes V8 .cpuprofile files (from `node --cpu-prof`) by self time: the functions and the
 * modules where the CPU went. Several files (a process's main thread and its workers) are added
 * up; samples in the first `skipMs` after the earliest profile's start can be left out (start-up).
 *
 *   npx tsx scripts/bench/cpuprofile-summary.ts FILE_OR_DIR... [--top 30] [--skip-ms 0]
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on V8's monotonic clock, shared by the threads of one process. */
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs since the previous sample (the first: since startTime). */
  timeDeltas: number[];
}

export interface SelfTimeRow {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  files: number;
  totalMs: number;
  /** (idle) excluded from `totalMs` and the shares. */
  idleMs: number;
  functions: SelfTimeRow[];
  modules: SelfTimeRow[];
}

/** Where a script URL belongs: a package under node_modules, node's internals, or our source file. */
function moduleOf(url: string): string {
  if (url === '') return '(native / V8)';
  if (url.startsWith('node:')) return 'node:internal';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  const src = /\/((?:apps|packages|scripts)\/.*)$/.exec(url);
  return src?.[1] ?? url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  return /\/((?:apps|packages|scripts)\/.*)$/.exec(url)?.[1] ?? url;
}

/** Expands directories to the .cpuprofile files in them. */
export function profileFiles(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => join(p, f))
      : [p],
  );
}

/** Self time by function and by module over the given profiles. */
export function summarizeProfiles(files: string[], opts: { skipMs?: number } = {}): ProfileSummary {
  const profiles = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as CpuProfile);
  const since = Math.min(...profiles.map((p) => p.startTime)) + (opts.skipMs ?? 0) * 1000;
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let idleUs = 0;
  let totalUs = 0;
  for (const p of profiles) {
    const nodes = new Map(p.nodes.map((n) => [n.id, n]));
    let t = p.startTime;
    const times = p.timeDeltas.map((d) => (t += d));
    for (let i = 0; i < p.samples.length; i++) {
      const at = times[i]!;
      const us = (i + 1 < times.length ? times[i + 1]! : p.endTime) - at;
      if (at < since || us <= 0) continue;
      const frame = nodes.get(p.samples[i]!)?.callFrame;
      if (!frame) continue;
      if (frame.functionName === '(idle)') {
        idleUs += us;
        continue;
      }
      totalUs += us;
      const name = frame.url
        ? `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`
        : frame.functionName;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
      const mod = moduleOf(frame.url);
      byModule.set(mod, (byModule.get(mod) ?? 0) + us);
    }
  }
  const rows = (m: Map<string, number>): SelfTimeRow[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, ms: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }));
  return {
    files: files.length,
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    functions: rows(byFunction),
    modules: rows(byModule),
  };
}

/** The summary as text: totals, then the top functions and modules by self time. */
export function formatSummary(s: ProfileSummary, top = 30): string {
  const line = (r: SelfTimeRow): string =>
    `${r.ms.toFixed(0).padStart(8)} ms ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}`;
  return [
    `${s.files} profile(s): ${s.totalMs.toFixed(0)} ms sampled not idle (idle ${s.idleMs.toFixed(0)} ms left out; ` +
      'samples are wall time: on a busy machine they include waiting for a core)',
    `top ${top} functions by self time:`,
    ...s.functions.slice(0, top).map(line),
    `top ${Math.min(top, 20)} modules by self time:`,
    ...s.modules.slice(0, Math.min(top, 20)).map(line),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '30' },
      'skip-ms': { type: 'string', default: '0' },
    },
  });
  const files = profileFiles(positionals);
  if (files.length === 0) {
    console.error('usage: cpuprofile-summary.ts FILE_OR_DIR... [--top 30] [--skip-ms 0]');
    process.exit(2);
  }
  console.log(
    formatSummary(
      summarizeProfiles(files, { skipMs: Number(values['skip-ms']) }),
      Number(values.top),
    ),
  );
}
