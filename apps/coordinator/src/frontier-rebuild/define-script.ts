import { readFileSync } from 'node:fs';
import { loadScript } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';

/** A script call on one client: KEYS first (as many as the file name says), then ARGV. */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Defines a rebuild script (`<name>-<numKeys>.lua` beside this file) on a client, its
 * `--- @include "includes/x"` lines taken from the frontier's scripts (EVALSHA, reloaded on
 * NOSCRIPT).
 */
export function defineRebuildScript(redis: RedisClient, file: URL): ScriptCall {
  const name = /([A-Za-z]+)-(\d+)\.lua$/.exec(file.pathname);
  if (!name) throw new Error(`not a script file name: ${file.pathname}`);
  const lua = readFileSync(file, 'utf8').replace(
    /^--- @include "([^"]+)"$/gm,
    (_m, include: string) => loadScript(`${include}.lua`),
  );
  const command = `rebuild_${name[1]!}`;
  redis.defineCommand(command, { numberOfKeys: Number(name[2]), lua });
  const fn = (redis as unknown as Record<string, ScriptCall | undefined>)[command];
  if (!fn) throw new Error(`script ${command} was not defined`);
  return (...args) => fn.apply(redis, args);
}
