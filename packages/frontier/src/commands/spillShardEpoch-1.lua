--[[
  The spill pump's hold on a shard (includes/spill.lua: spill_fenced). `take`: a pump of `epoch`
  (its Postgres ownership, spill-store.ts) starts working the shard: the shard's epoch becomes
  its own unless a newer pump already took it. `forget`: a pump that settled every refill batch
  Postgres records for the shard drops the ids of applied batches, unless it lost the shard.
  After a newer pump's `take`, every pump script of an older epoch changes nothing.

  Input:
    KEYS[1] the shard's spill epoch (`<prefix>spep`)
    ARGV[1] key prefix of the shard
    ARGV[2] 'take' or 'forget'
    ARGV[3] the pump's epoch
  Output:
    1, or 0 when the shard is another pump's
]]
local epoch_key = KEYS[1]
local prefix, op, epoch = ARGV[1], ARGV[2], tonumber(ARGV[3])
--- @include "includes/keys"
local current = tonumber(redis.call('GET', epoch_key) or '-1')
if op == 'take' then
  if current > epoch then return 0 end
  redis.call('SET', epoch_key, epoch)
  return 1
end
if current ~= epoch then return 0 end
redis.call('DEL', refill_done_key(prefix))
return 1
