--[[
  Extends an open lease (an agent working a slow host asks for more time), fenced by lease id.

  Input:
    KEYS[1] leases   zset lease_id -> deadline (ms)
    KEYS[2] stats    hash of shard counters (unused; keeps the shard's key set explicit)
    ARGV[1] key prefix of the shard
    ARGV[2] lease id
    ARGV[3] new lease length from now (ms)
  Output:
    the new deadline (ms), or STALE_LEASE (-1, see includes/script-replies.lua) when the lease
    is not current
]]
local leases_key = KEYS[1]
local prefix, lease_id, extra = ARGV[1], ARGV[2], tonumber(ARGV[3])
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/shard-moving"
--- @include "includes/set-deadline"
--- @include "includes/script-replies"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local host = redis.call('HGET', lease_key(prefix, lease_id), 'host')
if not host then return STALE_LEASE end
local hkey = host_key(prefix, host)
if redis.call('HGET', hkey, 'lease') ~= lease_id then return STALE_LEASE end
local deadline = now_ms() + extra
set_deadline(prefix, leases_key, hkey, lease_id, deadline)
return deadline
