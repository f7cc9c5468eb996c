--[[
  Brings one refill batch of a shard's spilled URLs back from Postgres into their hosts' heads,
  exactly once: the batch id is recorded in the shard's `<prefix>rfdone` set, and a batch already
  applied (a refiller that stopped before deleting the batch's Postgres record re-applies it)
  changes nothing. A batch holds groups, one per host tier (refillNeeds-1.lua said what they
  want); a group's entries go to the tail of the tier's list (they were spilled after everything
  in it), or become dead letters when the host was parked since it asked (a parked host's rows
  are not brought back: the pump drops them in Postgres and this counts them,
  `dead_dropped:<reason>`). With `exhausted` (Postgres had no more
  rows of the tier) and an empty overflow list, the tier's spilled count is cleared: nothing is
  left to refill. A host leaves the refill set when it no longer needs one (includes/spill.lua).

  Input:
    KEYS[1] ready    KEYS[2] stats    KEYS[3] dead
    ARGV[1] key prefix of the shard
    ARGV[2] batch id
    ARGV[3] low-water mark of a head
    ARGV[4] the pump's epoch (includes/spill.lua: spill_fenced)
    ARGV[5..] groups: host, tier ('0'..'9' or 'r'), exhausted ('1' when Postgres holds no more
              rows of the tier, else '0'), dropped (rows of a parked host's tier deleted in
              Postgres, counted as dropped dead letters), count, then `count` entries in order
  Output:
    entries brought back, -2 when the batch was applied before, or -3 when the shard is another
    pump's (nothing applied)
]]
local ready_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, batch, low, epoch = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
--- @include "includes/spill"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
if spill_fenced(prefix, epoch) then return -3 end
local done_key = refill_done_key(prefix)
if redis.call('SISMEMBER', done_key, batch) == 1 then return -2 end
local overflow_empty = redis.call('LLEN', overflow_key(prefix)) == 0
local now = now_ms()
local total, hosts = 0, {}

-- Applies one group: ARGV[from .. from + n - 1] are its entries.
local function apply(host, tier, exhausted, dropped, from, n)
  local hkey = host_key(prefix, host)
  hosts[host] = hkey
  if dropped > 0 then
    local reason = redis.call('HGET', hkey, 'park_reason') or 'parked'
    redis.call('HINCRBY', stats_key, 'dead_dropped', dropped)
    redis.call('HINCRBY', stats_key, 'dead_dropped:' .. reason, dropped)
  end
  local left = tonumber(redis.call('HGET', hkey, 's' .. tier) or '0')
  local dec = math.min(n, left)
  if exhausted and overflow_empty then dec = left end
  if dec > 0 then
    redis.call('HINCRBY', hkey, 's' .. tier, -dec)
    redis.call('HINCRBY', hkey, 'sp', -dec)
    redis.call('HINCRBY', stats_key, 'spilled', -dec)
  end
  if n == 0 then return end
  local last = from + n - 1
  if redis.call('HGET', hkey, 'parked') == '1' then
    local reason = redis.call('HGET', hkey, 'park_reason') or 'parked'
    for i = from, last do dead_letter(dead_key, stats_key, host, tier, reason, ARGV[i], now) end
  else
    local qkey = queue_key(prefix, tier, host)
    for i = from, last, 1000 do redis.call('RPUSH', qkey, unpack(ARGV, i, math.min(i + 999, last))) end
    redis.call('HINCRBY', hkey, 'n', n)
    redis.call('HINCRBY', stats_key, 'queued', n)
    make_ready(ready_key, hkey, host)
  end
  total = total + n
end

local i = 5
while i <= #ARGV do
  local n = tonumber(ARGV[i + 4])
  apply(ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1', tonumber(ARGV[i + 3]), i + 5, n)
  i = i + 5 + n
end
redis.call('SADD', done_key, batch)
for host, hkey in pairs(hosts) do
  if not needs_refill(prefix, hkey, host, low) then redis.call('SREM', refill_hosts_key(prefix), host) end
end
return total
