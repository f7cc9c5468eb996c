--[[
  ReleaseShardMoveLock: drops a slot's move lock if the caller holds it.

  Input:
    KEYS[1] the slot's lock    string: the holder's id
    ARGV[1] the caller's id
  Output:
    1 released, 0 not held by the caller (expired, or taken by another since)
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
