--[[
  Extends an IP's cross-shard lock with its lease (see releaseIpLock).

  Input:
    KEYS[1] ip lock  string: the id of the lease holding the IP
    ARGV[1] lease id
    ARGV[2] new lock length from now (ms)
  Output:
    IP_LOCK_HELD (1) when the lease held the lock, else IP_LOCK_NOT_HELD (0); see
    includes/script-replies.lua
]]
--- @include "includes/script-replies"
local lock_key, lease_id, ms = KEYS[1], ARGV[1], tonumber(ARGV[2])
if redis.call('GET', lock_key) ~= lease_id then return IP_LOCK_NOT_HELD end
redis.call('PEXPIRE', lock_key, ms)
return IP_LOCK_HELD
