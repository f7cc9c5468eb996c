--[[
  ReleaseShardMoveLock: drops a slot's move lock if the caller holds it.

  Input:
    KEYS[1] the slot's lock    string: the holder's id
    ARGV[1] the caller's id
  Output:
    HELD released, NOT_HELD not held by the caller (expired, or taken by another since)
]]
-- The answers, named: TypeScript names the same numbers in shard-move-store.ts
-- (ShardMoveLockReply); shard-move-store.test.ts checks that they agree, name for name.
local HELD = 1 -- ShardMoveLockReply.HELD: the caller holds the lock
local NOT_HELD = 0 -- ShardMoveLockReply.NOT_HELD: another holds it, or nobody (expired)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return NOT_HELD end
redis.call('DEL', KEYS[1])
return HELD
