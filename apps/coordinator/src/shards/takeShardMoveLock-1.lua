--[[
  TakeShardMoveLock: takes a slot's move lock, or renews it for the coordinator holding it.

  Input:
    KEYS[1] the slot's lock    string: the holder's id, expiring
    ARGV[1] the caller's id
    ARGV[2] time to live, ms
  Output:
    1 held by the caller now (taken or renewed), 0 held by another
]]
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
