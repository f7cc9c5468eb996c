--[[
  Extends an IP's cross-shard lock with its lease (see releaseIpLock).

  Input:
    KEYS[1] ip lock  string: the id of the lease holding the IP
    ARGV[1] lease id
    ARGV[2] new lock length from now (ms)
  Output:
    1 when the lease held the lock, else 0
]]
local lock_key, lease_id, ms = KEYS[1], ARGV[1], tonumber(ARGV[2])
if redis.call('GET', lock_key) ~= lease_id then return 0 end
redis.call('PEXPIRE', lock_key, ms)
return 1
