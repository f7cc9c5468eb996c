import type { RedisClient } from '@crawler/adapters/redis';

/**
 * Makes every Lua script later defined on `redis` (ioredis `defineCommand`) fail unless all the
 * keys it touches share one hash tag: its declared KEYS and every key of every `redis.call` /
 * `redis.pcall` it makes, read or write, including keys built inside the script from ARGV.
 *
 * Why a guard and not just a Redis Cluster: a cluster rejects declared KEYS of two slots
 * (CROSSSLOT) and undeclared keys served by another node, but Redis 7.0 runs a script that
 * builds a key of another slot served by the same node without complaint (checked on 7.0.15).
 * With three masters, a third of such bugs would pass. The guard catches all of them, on a
 * single Redis too.
 *
 * It prepends a prelude to the script: a local `redis` that checks the keys of each call
 * (found with `COMMAND GETKEYS`, so every command's key positions are right) and then calls the
 * real one. The script's own text runs unchanged after it. Test-only: it doubles the calls.
 */
export function guardScriptSlots<T extends RedisClient>(redis: T): T {
  const define = redis.defineCommand.bind(redis);
  redis.defineCommand = (name, definition) =>
    define(name, { ...definition, lua: withSlotGuard(definition.lua) });
  return redis;
}

/** The script with the guard prelude (after a `#!lua` shebang line, which must stay first). */
export function withSlotGuard(lua: string): string {
  if (!lua.startsWith('#!')) return `${PRELUDE}\n${lua}`;
  const eol = lua.indexOf('\n');
  return eol < 0
    ? `${lua}\n${PRELUDE}`
    : `${lua.slice(0, eol + 1)}${PRELUDE}\n${lua.slice(eol + 1)}`;
}

/** Marker the guard's errors start with, for tests to match. */
export const SLOT_GUARD_ERROR = 'slot guard:';

// One line, so the script's own line numbers in Redis errors move by one only.
const PRELUDE = [
  'local __redis = redis',
  'local function __tag(k)',
  " local o = string.find(k, '{', 1, true)",
  " if o then local c = string.find(k, '}', o + 1, true) if c and c > o + 1 then return string.sub(k, o + 1, c - 1) end end",
  ' return k',
  'end',
  'local __want, __first = nil, nil',
  'local function __check(key)',
  ' local t = __tag(key)',
  ' if __want == nil then __want, __first = t, key',
  ` elseif t ~= __want then error('${SLOT_GUARD_ERROR} ' .. key .. ' (hash tag ' .. t .. ') is not in the slot of ' .. __first .. ' (hash tag ' .. __want .. ')') end`,
  'end',
  'for _, k in ipairs(KEYS) do __check(k) end',
  'local function __check_call(...)',
  " local keys = __redis.pcall('COMMAND', 'GETKEYS', ...)",
  ' if type(keys) == "table" and not keys.err then for _, k in ipairs(keys) do __check(k) end end',
  'end',
  'local redis = setmetatable({',
  ' call = function(...) __check_call(...) return __redis.call(...) end,',
  ' pcall = function(...) __check_call(...) return __redis.pcall(...) end,',
  '}, { __index = __redis })',
].join(' ');
