--[[
  Open leases of a shard, soonest deadline first: for the console's view of who holds what.

  Input:
    KEYS[1] leases   zset lease_id -> deadline (ms)
    ARGV[1] key prefix of the shard
    ARGV[2] at most this many
  Output:
    array of { lease_id, host, agent, deadline }
]]
--- @include "includes/keys"
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local out = {}
local ids = redis.call('ZRANGE', KEYS[1], 0, limit - 1, 'WITHSCORES')
for i = 1, #ids, 2 do
  local l = redis.call('HMGET', lease_key(prefix, ids[i]), 'host', 'agent')
  out[#out + 1] = { ids[i], l[1] or '', l[2] or '', ids[i + 1] }
end
return out
