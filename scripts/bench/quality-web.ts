import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Manifest } from '@crawler/synthetic-web';
import { startWebChild } from './web-child';

/** The synthetic web with every trap family, serving in a child process (its CPU not counted). */
export interface QualityWeb {
  port: number;
  /** Files written by `cli.ts serve`: the DNS map (CRAWLER_DNS_MAP's format) and seeds.txt. */
  dnsMapPath: string;
  seedsPath: string;
  manifest: Manifest;
  dnsMap: Record<string, string>;
  seeds: string[];
  /** The web's JSON-lines request log (complete once `stop` resolved). */
  logPath: string;
  /** SIGTERM, then waits for the web to close its sockets and flush its log. */
  stop(): Promise<void>;
}

/**
 * Starts `packages/synthetic-web/src/cli.ts serve --trap-families` with a fresh log under `dir`,
 * generated for the crawler's product token.
 */
export async function startQualityWeb(o: {
  root: string;
  hosts: number;
  seed: string;
  token: string;
  dir: string;
}): Promise<QualityWeb> {
  const web = await startWebChild({ ...o, args: ['--trap-families', '--token', o.token] });
  try {
    const dnsMap = z
      .record(z.string(), z.string())
      .parse(JSON.parse(readFileSync(web.dnsMap, 'utf8')));
    return {
      port: web.port,
      dnsMapPath: web.dnsMap,
      seedsPath: web.seeds,
      manifest: JSON.parse(readFileSync(web.manifest, 'utf8')) as Manifest,
      dnsMap,
      seeds: readFileSync(web.seeds, 'utf8').split('\n').filter(Boolean),
      logPath: web.logPath,
      stop: () => web.stop(),
    };
  } catch (err) {
    await web.stop();
    throw err;
  }
}
