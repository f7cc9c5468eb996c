import { z } from 'zod';
import { zeroCounters, type AgentCounters } from '@crawler/crawl-core';
import type { Config } from '@crawler/domain/config';

/**
 * What a one-shot crawl's agent processes and the crawl say to each other over their IPC
 * channel (Node's advanced serialization): the crawl starts each with its configuration and
 * stops it; each reports its counters every {@link REPORT_EVERY_MS} and once more when drained.
 * Both ends validate what they read.
 */
export const REPORT_EVERY_MS = 250;

const countersSchema = z.object({
  fetched: z.number(),
  errors: z.number(),
  bytes: z.number(),
  robotsDenied: z.number(),
  linksEnqueued: z.number(),
  addressRefused: z.number(),
  trapRefused: z.number(),
  blockRefused: z.number(),
  qualityRefused: z.number(),
  probes: z.number(),
}) satisfies z.ZodType<AgentCounters>;

export const toAgentSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    /** The crawl's configuration, with this agent's own id (a validated Config, as loaded). */
    config: z.record(z.string(), z.unknown()).refine((c) => typeof c.agentId === 'string', {
      message: 'config.agentId must be a string',
    }),
    warcDir: z.string().min(1),
  }),
  z.object({ type: z.literal('stop') }),
]);
export type ToAgent = { type: 'start'; config: Config; warcDir: string } | { type: 'stop' };

export const fromAgentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started') }),
  z.object({
    type: z.literal('report'),
    counters: countersSchema,
    activeLeases: z.number().int().min(0),
    /** Share of the time since the agent started that its event loop was busy (0–1). */
    eventLoopUtilization: z.number().min(0).max(1),
  }),
  z.object({
    type: z.literal('stopped'),
    counters: countersSchema,
    eventLoopUtilization: z.number().min(0).max(1),
  }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type FromAgent = z.infer<typeof fromAgentSchema>;

/** The agents' counters added up. */
export function sumCounters(all: Iterable<AgentCounters>): AgentCounters {
  const total = zeroCounters();
  for (const c of all)
    for (const k of Object.keys(total) as Array<keyof AgentCounters>) total[k] += c[k];
  return total;
}
