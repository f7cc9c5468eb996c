--[[
  TakeShardMoveLock: takes a slot's move lock, or renews it for the coordinator holding it.

  Input:
    KEYS[1] the slot's lock    string: the holder's id, expiring
    ARGV[1] the caller's id
    ARGV[2] time to live, ms
  Output:
    HELD held by the caller now (taken or renewed), NOT_HELD held by another
]]
-- The answers, named: TypeScript names the same numbers in shard-move-store.ts
-- (ShardMoveLockReply); shard-move-store.test.ts checks that they agree, name for name.
local HELD = 1 -- ShardMoveLockReply.HELD: the caller holds the lock
local NOT_HELD = 0 -- ShardMoveLockReply.NOT_HELD: another holds it, or nobody (expired)
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return NOT_HELD end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return HELD
