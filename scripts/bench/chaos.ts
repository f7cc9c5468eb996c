import { parseArgs } from 'node:util';
import { benchOptions } from './chaos/chaos-options';
import { chaosTargets, type ChaosResult } from './chaos/chaos-result';
import { runChaos } from './chaos/run-chaos';
import { webBenchArgs, webBenchOptions } from './web-bench';

/**
 * Issue 13's chaos scenario (docs/BENCHMARKS.md, "chaos"): a crawl of the synthetic web by agent
 * processes and a coordinator process on a Redis, Postgres database and S3 of its own, while
 * agents, the coordinator and Redis are killed and one agent's WARC folder fills up, after issue
 * 22's feed outage (the coordinator frozen 5 minutes); then every discovered URL, fetch, WARC
 * record and fed page is accounted for. The targets are printed, never
 * enforced here (`npm test` runs a short version that asserts them).
 */
export async function run(args: string[]): Promise<ChaosResult> {
  const { values } = parseArgs({
    args,
    options: {
      ...webBenchOptions({ hosts: 300, seconds: 120, gapMs: 500 }),
      agents: { type: 'string', default: '3' },
      hostile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      /** Issue 22's feed outage before the faults: the coordinator frozen this long (0: none). */
      'feed-outage-s': { type: 'string', default: '300' },
      /** FEED_MAX_BYTES of the run, MiB (at least 1). */
      'feed-max-mb': { type: 'string', default: '16' },
    },
  });
  const { hosts, seconds, gapMs, seed } = webBenchArgs(values);
  const result = await runChaos(
    benchOptions({
      hosts,
      seconds,
      gapMs,
      seed: Number(seed),
      agents: Number(values.agents),
      hostile: values.hostile,
      feedOutage:
        Number(values['feed-outage-s']) > 0 ? { forS: Number(values['feed-outage-s']) } : null,
      feedMaxBytes: Math.round(Number(values['feed-max-mb']) * 1024 * 1024),
    }),
    undefined,
    values.keep,
  );
  console.error('targets (issues 13 and 22):');
  for (const t of chaosTargets(result))
    console.error(`  ${t.ok ? '✓' : '✗'} ${t.name}: ${t.detail}`);
  return result;
}
