--[[
  PutShardMove: records a move's progress, only while the caller holds the slot's move lock (a
  coordinator that lost it, paused past its expiry, must not overwrite the one now moving).

  Input:
    KEYS[1] the slot's lock    string: the holder's id
    KEYS[2] the records        hash: shard → move (JSON)
    ARGV[1] the caller's id
    ARGV[2] the shard
    ARGV[3] the move (JSON)
  Output:
    1 recorded, 0 the caller does not hold the lock
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
