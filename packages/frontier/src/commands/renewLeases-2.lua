--[[
  Renews open leases (the agent's heartbeat for them), fenced by lease id: each still-current
  lease's deadline becomes now + ttl. A lease not renewed in time expires and is reclaimed, so a
  dead agent's hosts come back within one ttl.

  Input:
    KEYS[1] leases   zset lease_id -> deadline (ms)
    KEYS[2] stats    hash of shard counters (for the shard-move check)
    ARGV[1] key prefix of the shard
    ARGV[2] time to live from now (ms)
    ARGV[3..] lease ids
  Output:
    array of the new deadlines (ms), STALE_LEASE (-1, see includes/script-replies.lua) for a
    lease that is no longer current
]]
local leases_key = KEYS[1]
local prefix, ttl = ARGV[1], tonumber(ARGV[2])
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/shard-moving"
--- @include "includes/set-deadline"
--- @include "includes/script-replies"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local now = now_ms()
local deadline = now + ttl
local out = {}
for i = 3, #ARGV do
  local lease_id = ARGV[i]
  local host = redis.call('HGET', lease_key(prefix, lease_id), 'host')
  local hkey = host and host_key(prefix, host)
  local old = tonumber(redis.call('ZSCORE', leases_key, lease_id) or '0')
  -- Past its deadline a lease is not renewed (it may be reclaimed any moment): the agent stops.
  if hkey and redis.call('HGET', hkey, 'lease') == lease_id and old >= now then
    set_deadline(prefix, leases_key, hkey, lease_id, deadline)
    out[#out + 1] = deadline
  else
    out[#out + 1] = STALE_LEASE
  end
end
return out
