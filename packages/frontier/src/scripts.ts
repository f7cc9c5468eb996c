import { readFileSync } from 'node:fs';
import type { RedisClient } from '@crawler/adapters/redis';

const commandsDir = new URL('./commands/', import.meta.url);

/** Reads a script and inlines its `--- @include "includes/x"` lines (once each). */
function loadScript(file: string, included = new Set<string>()): string {
  const text = readFileSync(new URL(file, commandsDir), 'utf8');
  return text.replace(/^--- @include "([^"]+)"$/gm, (_m, name: string) => {
    if (included.has(name)) return '';
    included.add(name);
    return loadScript(`${name}.lua`, included);
  });
}

/**
 * Script name → file; the number in the file name is the script's KEYS count. Every script of
 * the frontier's keys is here, the re-crawl schedule's and the rebuild's too: one loader.
 */
const scripts = {
  enqueueUrls: 'enqueueUrls-4.lua',
  leaseHosts: 'leaseHosts-3.lua',
  completeLease: 'completeLease-4.lua',
  failLease: 'failLease-4.lua',
  extendLease: 'extendLease-2.lua',
  releaseIpLock: 'releaseIpLock-1.lua',
  extendIpLock: 'extendIpLock-1.lua',
  reclaimExpired: 'reclaimExpired-3.lua',
  requeueDeadLetters: 'requeueDeadLetters-3.lua',
  setHostPolicy: 'setHostPolicy-2.lua',
  demoteHost: 'demoteHost-2.lua',
  shardStats: 'shardStats-5.lua',
  seenBatch: 'seenBatch-2.lua',
  renewLeases: 'renewLeases-2.lua',
  leaseProgress: 'leaseProgress-2.lua',
  releaseLeases: 'releaseLeases-3.lua',
  listLeases: 'listLeases-1.lua',
  markSeen: 'markSeen-2.lua',
  checkSeenCandidates: 'checkSeenCandidates-2.lua',
  observeRecrawl: 'observeRecrawl-2.lua',
  mergeRecrawl: 'mergeRecrawl-4.lua',
  spillTrim: 'spillTrim-1.lua',
  refillNeeds: 'refillNeeds-1.lua',
  refillHeads: 'refillHeads-3.lua',
} as const;

export type ScriptName = keyof typeof scripts;

export type FrontierCommands = Record<
  ScriptName,
  (...args: (string | number)[]) => Promise<unknown>
>;

/** Defines the frontier scripts on a client (EVALSHA with automatic reload on NOSCRIPT). */
export function defineFrontierScripts(redis: RedisClient): FrontierCommands {
  const out = {} as FrontierCommands;
  for (const [name, file] of Object.entries(scripts) as [ScriptName, string][]) {
    const numberOfKeys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
    const command = `frontier_${name}`;
    redis.defineCommand(command, { numberOfKeys, lua: loadScript(file) });
    const fn = (
      redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>
    )[command];
    if (!fn) throw new Error(`script ${name} was not defined`);
    out[name] = (...args) => fn.apply(redis, args);
  }
  return out;
}
