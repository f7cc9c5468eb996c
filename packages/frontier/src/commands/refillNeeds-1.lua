--[[
  What a shard's heads want back from the spill, for one refill batch (includes/spill.lua): for up
  to `max hosts` hosts of the refill set `<prefix>rf`, each spilled tier whose head is under the
  low-water mark wants up to the head bound; a parked host's spilled tiers want 0: their rows are
  dropped in Postgres, counted (refillHeads-3.lua).
  Stops adding hosts once `max urls` are wanted. Hosts that want nothing any more leave the set.
  Also forgets refill batches whose Postgres rows are gone (their ids in `<prefix>rfdone`), and
  says how long the overflow list is (the spiller copies it first). A moving shard: nothing.

  Input:
    KEYS[1] stats
    ARGV[1] key prefix of the shard
    ARGV[2] head bound
    ARGV[3] low-water mark of a head
    ARGV[4] most hosts to look at
    ARGV[5] most URLs to want
    ARGV[6] the pump's epoch (includes/spill.lua: spill_fenced)
    ARGV[7..] ids of applied batches to forget
  Output:
    { overflow length, host, tier, want, host, tier, want, ... }, or { -3 } when the shard is
    another pump's (nothing changed)
]]
local stats_key = KEYS[1]
local prefix, head, low = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local max_hosts, max_urls = tonumber(ARGV[4]), tonumber(ARGV[5])
--- @include "includes/keys"
--- @include "includes/host-queue"
--- @include "includes/shard-moving"
--- @include "includes/spill"
if shard_moving(stats_key) then return { 0 } end
if spill_fenced(prefix, ARGV[6]) then return { -3 } end
for i = 7, #ARGV do redis.call('SREM', refill_done_key(prefix), ARGV[i]) end
local out = { redis.call('LLEN', overflow_key(prefix)) }
local wanted = 0
for _, host in ipairs(redis.call('SRANDMEMBER', refill_hosts_key(prefix), max_hosts)) do
  if wanted >= max_urls then break end
  local hkey = host_key(prefix, host)
  local parked = redis.call('HGET', hkey, 'parked') == '1'
  local any = false
  for _, tier in ipairs(TIERS) do
    if tonumber(redis.call('HGET', hkey, 's' .. tier) or '0') > 0 then
      local len = parked and 0 or redis.call('LLEN', queue_key(prefix, tier, host))
      if parked or len < low then
        local want = parked and 0 or math.max(1, head - len)
        out[#out + 1], out[#out + 2], out[#out + 3] = host, tier, want
        wanted = wanted + want
        any = true
      end
    end
  end
  if not any then redis.call('SREM', refill_hosts_key(prefix), host) end
end
return out
