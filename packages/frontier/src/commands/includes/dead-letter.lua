-- Parks an entry in the shard's dead-letter list with its host, tier, reason and time, and
-- counts it by reason (stats field `dead:<reason>`, lowered again when it is re-queued). The
-- list is bounded by bytes: a shard holds at most its stats field `dead_cap` (written by
-- openFrontier from FRONTIER_DEAD_LETTER_MAX_BYTES; DEAD_CAP_DEFAULT until then) of letters,
-- `dead_bytes` counting them; past it a letter is dropped and counted (`dead_dropped`,
-- `dead_dropped:<reason>`), so a failing crawl cannot fill Redis. Returns true when kept.
local DEAD_CAP_DEFAULT = 4 * 1024 * 1024
local function dead_letter(dead_key, stats_key, host, tier, reason, entry, now)
  local letter = cjson.encode({ h = host, q = tier, r = reason, e = entry, t = now })
  local cap = tonumber(redis.call('HGET', stats_key, 'dead_cap') or DEAD_CAP_DEFAULT)
  if tonumber(redis.call('HGET', stats_key, 'dead_bytes') or '0') + #letter > cap then
    redis.call('HINCRBY', stats_key, 'dead_dropped', 1)
    redis.call('HINCRBY', stats_key, 'dead_dropped:' .. reason, 1)
    return false
  end
  redis.call('RPUSH', dead_key, letter)
  redis.call('HINCRBY', stats_key, 'dead', 1)
  redis.call('HINCRBY', stats_key, 'dead:' .. reason, 1)
  redis.call('HINCRBY', stats_key, 'dead_bytes', #letter)
  return true
end
