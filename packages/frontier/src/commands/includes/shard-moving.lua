-- A shard whose slot is moving to another Redis node runs no script (Frontier.freezeShard before
-- CLUSTER SETSLOT … MIGRATING, thawShard after SETSLOT … NODE). Redis routes a script by its
-- declared keys only, and while the slot migrates the keys a script builds (h:, q*:, lq:, l:,
-- ip:) may sit on either node: on the importing node one not moved yet reads as missing, on the
-- migrating node one already moved (or a new one) fails the script halfway, after its earlier
-- writes. The flag is a field of the shard's stats hash, which every script declares, so the node
-- that runs a script always holds it; each script checks it before touching any other key.
local function shard_moving(stats_key)
  return redis.call('HGET', stats_key, 'moving') == '1'
end
-- Its first word is the error code callers wait out: ScriptError.SHARD_MOVING (script-replies.ts).
local SHARD_MOVING = 'SHARDMOVING the shard is moving to another Redis node; retry'
