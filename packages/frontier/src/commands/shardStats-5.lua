--[[
  Counters of one shard, after reclaiming expired leases (so an idle fleet still returns URLs) and
  moving hosts an earlier release left in the legacy ready set into their class sets.

  Input:
    KEYS[1] ready    KEYS[2] leases    KEYS[3] stats    KEYS[4] seen    KEYS[5] dead
    ARGV[1] key prefix of the shard
    ARGV[2] seen mode: 'bloom' or 'set'
  Output:
    { hosts, queued, seen, ready_now, ready_total, open_leases, dead, processed, seen_bytes, accepted,
      spilled }  (queued counts the heads only)
]]
local ready_key, leases_key, stats_key, seen_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, mode = ARGV[1], ARGV[2]
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/reclaim-expired"
--- @include "includes/shard-moving"
--- @include "includes/seen-set"
local now = now_ms()
-- A moving shard still reports its counters (the class sets as far as this node serves them:
-- ready_sum), but reclaims and moves nothing.
local moving = shard_moving(stats_key)
if not moving then
  reclaim_expired(prefix, ready_key, leases_key, stats_key, now, 1000)
  ready_drain_legacy(prefix, ready_key, stats_key)
end
local s = redis.call('HMGET', stats_key, 'hosts', 'queued', 'processed', 'accepted', 'spilled')
local seen, seen_bytes
if mode == 'set' then
  seen = redis.call('SCARD', seen_key)
  seen_bytes = 0
else
  seen = tonumber(s[4] or '0')
  -- Layers past the first are keys the script builds: read only while the shard stays put.
  seen_bytes = moving and redis.call('STRLEN', seen_key) or seen_layer_bytes(seen_key)
end
return {
  tonumber(s[1] or '0'), tonumber(s[2] or '0'), seen,
  ready_count(ready_key, '-inf', now, moving), ready_card(ready_key, moving),
  redis.call('ZCARD', leases_key), redis.call('LLEN', dead_key), tonumber(s[3] or '0'), seen_bytes,
  tonumber(s[4] or '0'), tonumber(s[5] or '0'),
}
