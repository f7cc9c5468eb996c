import {
  defineRedisScript,
  loadLua,
  type RedisClient,
  type RedisScript,
} from '@crawler/adapters/redis';

/** The scripts' folder: includes are named from it (`--- @include "includes/x"`). */
const commandsDir = new URL('./commands/', import.meta.url);

/** A script's text, its includes inlined (once each). */
export function loadFrontierScript(file: string): string {
  return loadLua(new URL(file, commandsDir), commandsDir);
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
  spillTrim: 'spillTrim-2.lua',
  spillShardEpoch: 'spillShardEpoch-1.lua',
  refillNeeds: 'refillNeeds-1.lua',
  refillHeads: 'refillHeads-3.lua',
} as const;

export type ScriptName = keyof typeof scripts;

export type FrontierCommands = Record<ScriptName, RedisScript>;

/**
 * Defines the frontier scripts on a client as commands `frontier_<name>` (EVALSHA, the script
 * sent again when Redis answers NOSCRIPT: after a restart, or on a cluster node that has not
 * seen it yet).
 */
export function defineFrontierScripts(redis: RedisClient): FrontierCommands {
  const out = {} as FrontierCommands;
  for (const [name, file] of Object.entries(scripts) as [ScriptName, string][]) {
    const numberOfKeys = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
    out[name] = defineRedisScript(
      redis,
      `frontier_${name}`,
      numberOfKeys,
      loadFrontierScript(file),
    );
  }
  return out;
}
