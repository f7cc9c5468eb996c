import { describe, expect, it } from 'vitest';
import { testOptions } from './chaos-options';
import { chaosTargets } from './chaos-result';
import { runChaos } from './run-chaos';

// `npm run bench -- chaos` in short (docs/BENCHMARKS.md, "chaos"): 3 agent processes and a
// coordinator process crawl a 60-host synthetic web on a Redis, Postgres database and S3 of
// their own; an agent is SIGKILLed once, the coordinator once, Redis once, and one agent's WARC
// folder is full for 10 s — after the coordinator was frozen for 15 s with a 4 MiB feed (issue
// 22), long enough for the agents to fill it and hold their leasing. Every target must hold,
// with no allowance: nothing lost, polite, robots obeyed, no more repeated fetches than URLs the
// killed agent had in flight, every WARC record readable, no host with due work left unleased
// for more than 30 s, every page the feed carried in ClickHouse `pages` and none dropped.
// Needs root (a tmpfs for the full disk), redis-server on PATH and Postgres on 127.0.0.1:5432.
describe('chaos', () => {
  it('keeps every URL, fetch and record through kills of agents, coordinator and Redis and a full disk', async () => {
    const lines: string[] = [];
    const result = await runChaos(testOptions(), (l) => {
      lines.push(l);
      process.stderr.write(`${l}\n`);
    });
    console.log(JSON.stringify(result));
    expect(result).toMatchObject({
      agent_kills: 1,
      coordinator_kills: 1,
      redis_restarts: 1,
      disk_faults: 1,
    });
    expect(result.pages).toBeGreaterThan(100);
    expect(result).toMatchObject({ feed_outage_s: 15 });
    expect(result.feed_held_s).toBeGreaterThan(0);
    expect(result.pages_fed).toBeGreaterThan(100);
    const missed = chaosTargets(result).filter((t) => !t.ok);
    expect(
      missed.map((t) => `${t.name}: ${t.detail}`),
      lines.join('\n'),
    ).toEqual([]);
  }, 240_000);
});
