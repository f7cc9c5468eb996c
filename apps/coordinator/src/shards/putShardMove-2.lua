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
    HELD recorded, NOT_HELD the caller does not hold the lock
]]
-- The answers, named: TypeScript names the same numbers in shard-move-store.ts
-- (ShardMoveLockReply); shard-move-store.test.ts checks that they agree, name for name.
local HELD = 1 -- ShardMoveLockReply.HELD: the caller holds the lock
local NOT_HELD = 0 -- ShardMoveLockReply.NOT_HELD: another holds it, or nobody (expired)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return NOT_HELD end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return HELD
