--[[
  Releases an IP's cross-shard lock held by a lease (hosts of one IP may live in different
  shards, whose scripts cannot see each other's IP state). With a pause between two leases on
  one IP, the lock stays for that long under no lease.

  Input:
    KEYS[1] ip lock  string: the id of the lease holding the IP
    ARGV[1] lease id
    ARGV[2] pause before the next lease on the IP (ms), 0 for none
  Output:
    IP_LOCK_HELD (1) when the lease held the lock, else IP_LOCK_NOT_HELD (0); see
    includes/script-replies.lua
]]
--- @include "includes/script-replies"
local lock_key, lease_id, gap = KEYS[1], ARGV[1], tonumber(ARGV[2])
if redis.call('GET', lock_key) ~= lease_id then return IP_LOCK_NOT_HELD end
if gap > 0 then
  redis.call('SET', lock_key, '', 'PX', gap)
else
  redis.call('DEL', lock_key)
end
return IP_LOCK_HELD
