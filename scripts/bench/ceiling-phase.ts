import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@crawler/domain/config';
import {
  readRequestLog,
  scoreCrawl,
  type Manifest,
  type RequestLogEntry,
} from '@crawler/synthetic-web';
import { buildCeilingHosts, type CeilingPlan } from './ceiling-plan';
import { measureChild, type Measured } from './measure-child';
import { windowCounts, type WindowCounts } from './window-counts';
import { startWebChild } from './web-child';

/** The ceiling phase of a bench: what a bare undici loop reached, in the same run. */
export interface CeilingResult {
  counts: WindowCounts;
  measured: Measured;
  politenessViolations: number;
}

/**
 * The ceiling (`agent-ceiling.ts`, a bare undici loop with the crawler's politeness and nothing
 * else) against a fresh copy of the same synthetic web: it replays, per host, the requests the
 * crawler made (from `crawlLog`) and goes on with the expected URLs the crawler did not reach.
 * Measured like the crawler: from its first response for `seconds`, from the web's own log.
 */
export async function measureCeiling(o: {
  root: string;
  hosts: number;
  seed: string;
  dir: string;
  seconds: number;
  gapMs: number;
  config: Config;
  crawlLog: RequestLogEntry[];
  manifest: Manifest;
}): Promise<CeilingResult> {
  const web = await startWebChild({ root: o.root, hosts: o.hosts, seed: o.seed, dir: o.dir });
  try {
    const plan: CeilingPlan = {
      port: web.port,
      userAgent: o.config.userAgent,
      connectTimeoutMs: o.config.FETCH_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: o.config.FETCH_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: o.config.FETCH_TOTAL_TIMEOUT_MS,
      maxBodyBytes: o.config.FETCH_MAX_BODY_BYTES,
      backoffBaseMs: o.config.FRONTIER_BACKOFF_BASE_MS,
      backoffMaxMs: o.config.FRONTIER_BACKOFF_MAX_MS,
      robotsRetryBaseMs: o.config.ROBOTS_RETRY_BASE_MS,
      hosts: buildCeilingHosts(o.crawlLog, o.manifest, o.gapMs),
    };
    const planPath = join(o.dir, 'ceiling-plan.json');
    writeFileSync(planPath, JSON.stringify(plan));
    const measured = await measureChild({
      label: 'ceiling',
      cwd: o.root,
      nodeArgs: ['--import', 'tsx', 'scripts/bench/agent-ceiling.ts', planPath],
      env: process.env,
      logPath: web.logPath,
      seconds: o.seconds,
      collectStdout: true,
    });
    await web.stop();
    const log = await readRequestLog(web.logPath);
    const score = scoreCrawl({
      log,
      manifest: o.manifest,
      productToken: o.config.CRAWLER_UA_TOKEN,
      minGapMs: o.gapMs,
    });
    console.error(
      `ceiling: ${measured.stdout.at(-1) ?? '{}'}; politeness violations ${score.politeness_violations}; ` +
        `window cpu ${(measured.cpuMs / 1000).toFixed(1)} s, machine ${(measured.machineBusy * 100).toFixed(0)}% busy`,
    );
    for (const v of score.violations.slice(0, 5))
      console.error(`ceiling violation ${v.kind} ${v.host}: ${v.detail}`);
    return {
      counts: windowCounts(log, measured.windowStartMs, measured.windowEndMs),
      measured,
      politenessViolations: score.politeness_violations,
    };
  } finally {
    await web.stop();
  }
}
