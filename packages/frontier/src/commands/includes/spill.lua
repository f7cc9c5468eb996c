--- @include "includes/keys"
-- A host's bounded head (FRONTIER_HEAD_MAX): each tier list holds at most `head` entries; the
-- rest of the tier spills, in order, to the shard's overflow list `<prefix>ov` (entries
-- `seq|tier|host|entry`, seq from the stats field `spill_seq`), which the coordinator's spiller
-- copies into Postgres (frontier_spill) and trims. A tier with spilled URLs takes every new URL
-- into the overflow too, so its order stays first in, first out. Host hash fields: `s<tier>` the
-- tier's spilled URLs (overflow + Postgres), `sp` their sum; the stats field `spilled` is the
-- shard's. A host whose spilled tier's head is under the low-water mark (or a parked host with
-- spilled URLs, whose rows the pump drops) is in the refill set `<prefix>rf`; the refiller asks what the set's hosts want
-- (refillNeeds) and brings rows back, many host tiers per batch (refillHeads).
-- head = 0: no bound (nothing spills).

-- Spills entries[from..] of a host's tier into the overflow list. Returns how many.
local function spill_entries(prefix, stats_key, hkey, host, tier, entries, from)
  local n = #entries - from + 1
  if n <= 0 then return 0 end
  local last = redis.call('HINCRBY', stats_key, 'spill_seq', n)
  local out = {}
  for i = from, #entries do
    out[#out + 1] = (last - n + (i - from + 1)) .. '|' .. tier .. '|' .. host .. '|' .. entries[i]
  end
  for i = 1, #out, 1000 do
    redis.call('RPUSH', overflow_key(prefix), unpack(out, i, math.min(i + 999, #out)))
  end
  redis.call('HINCRBY', hkey, 's' .. tier, n)
  redis.call('HINCRBY', hkey, 'sp', n)
  redis.call('HINCRBY', stats_key, 'spilled', n)
  return n
end

-- How many of a tier's new entries its head takes: none while the tier has spilled URLs.
local function head_room(prefix, hkey, host, tier, head)
  if head <= 0 then return math.huge end
  if tonumber(redis.call('HGET', hkey, 's' .. tier) or '0') > 0 then return 0 end
  return math.max(0, head - redis.call('LLEN', queue_key(prefix, tier, host)))
end

-- True when the host has spilled URLs the refiller should bring back now: a spilled tier's head
-- is under `low`, or the host is parked (the pump drops its spilled rows in Postgres, counted
-- as dropped dead letters: they never come back into Redis).
local function needs_refill(prefix, hkey, host, low)
  if tonumber(redis.call('HGET', hkey, 'sp') or '0') <= 0 then return false end
  if redis.call('HGET', hkey, 'parked') == '1' then return true end
  for _, tier in ipairs({ '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'r' }) do
    if tonumber(redis.call('HGET', hkey, 's' .. tier) or '0') > 0
      and redis.call('LLEN', queue_key(prefix, tier, host)) < low then
      return true
    end
  end
  return false
end

-- Puts the host in the refill set when it needs a refill (low = 0: spilling is off).
local function request_refill(prefix, hkey, host, low)
  if low > 0 and needs_refill(prefix, hkey, host, low) then
    redis.call('SADD', refill_hosts_key(prefix), host)
  end
end

-- True when the spill pump of `epoch` may no longer change the shard: another pump (a newer
-- epoch, spillShardEpoch-1.lua) has taken it, or none has yet in this Redis (spill-store.ts).
local function spill_fenced(prefix, epoch)
  return tonumber(redis.call('GET', spill_epoch_key(prefix)) or '-1') ~= tonumber(epoch)
end
