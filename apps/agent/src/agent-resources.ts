import type { Config } from '@crawler/shared/config';
import type { Frontier } from '@crawler/frontier';
import type { WarcWriter } from '@crawler/shared/warc';
import type { HttpClient } from './fetch/http-client';
import type { RobotsCache } from './robots/robots-cache';
import type { TelemetrySink } from './telemetry/telemetry-sink';
import type { ParsePool } from './parse/parse-pool';
import type { Logger } from '@crawler/shared/log';

/** What every part of the agent shares: built once in agent.ts, passed down. */
export interface AgentResources {
  config: Config;
  frontier: Frontier;
  http: HttpClient;
  robots: RobotsCache;
  warc: WarcWriter;
  telemetry: TelemetrySink;
  /** HTML parsing off the event loop. */
  parsePool: ParsePool;
  log: Logger;
  /** Counters for heartbeats and the summary. */
  counters: AgentCounters;
}

export interface AgentCounters {
  fetched: number;
  errors: number;
  bytes: number;
  robotsDenied: number;
  linksEnqueued: number;
}
