--[[
  Counters of one shard, after reclaiming expired leases (so an idle fleet still returns URLs).

  Input:
    KEYS[1] ready    KEYS[2] leases    KEYS[3] stats    KEYS[4] seen
    ARGV[1] key prefix of the shard
    ARGV[2] seen-set kind: 'set' (exact)
  Output:
    { hosts, queued, seen, ready_now, ready_total, open_leases, dead, processed }
]]
local ready_key, leases_key, stats_key, seen_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
--- @include "includes/now-ms"
--- @include "includes/make-ready"
--- @include "includes/reclaim-expired"
local now = now_ms()
reclaim_expired(prefix, ready_key, leases_key, stats_key, now, 1000)
local s = redis.call('HMGET', stats_key, 'hosts', 'queued', 'dead', 'processed')
return {
  tonumber(s[1] or '0'), tonumber(s[2] or '0'), redis.call('SCARD', seen_key),
  redis.call('ZCOUNT', ready_key, '-inf', now), redis.call('ZCARD', ready_key),
  redis.call('ZCARD', leases_key), tonumber(s[3] or '0'), tonumber(s[4] or '0'),
}
