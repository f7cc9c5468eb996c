-- Parks an entry in the shard's dead-letter list with its host, tier, reason and time, and
-- counts it by reason (stats field `dead:<reason>`, lowered again when it is re-queued).
local function dead_letter(dead_key, stats_key, host, tier, reason, entry, now)
  redis.call('RPUSH', dead_key, cjson.encode({ h = host, q = tier, r = reason, e = entry, t = now }))
  redis.call('HINCRBY', stats_key, 'dead', 1)
  redis.call('HINCRBY', stats_key, 'dead:' .. reason, 1)
end
