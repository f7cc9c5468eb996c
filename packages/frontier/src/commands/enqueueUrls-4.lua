--[[
  Adds URLs to their hosts' queues. A discovery URL is accepted once per url_fp (the shard's seen
  set); a re-crawl URL is accepted when it is not already waiting for a re-crawl (the shard's
  `rq` set), so a url_fp is in the frontier at most once at a time.

  Input:
    KEYS[1] ready    zset host -> next allowed time (ms)
    KEYS[2] seen     Bloom bit string, or a set in exact mode
    KEYS[3] stats    hash of shard counters
    KEYS[4] dead     list of dead letters
    ARGV[1] key prefix of the shard, e.g. "crawl:{7}:" (per-host keys are built from it)
    ARGV[2] seen mode: 'bloom' or 'set'
    ARGV[3] Bloom size in bits (m)
    ARGV[4] Bloom hash count (k)
    ARGV[5..] quadruples: url_fp, host, tier ('0'..'3', or 'r' for a re-crawl), entry — grouped
            by host (all URLs of a host together, in order)
  Output:
    number of URLs accepted
]]
local ready_key, seen_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, mode, m, k = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
--- @include "includes/seen-set"
--- @include "includes/shard-moving"
--- @include "includes/suffix-policy"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local now = now_ms()
local accepted, accepted_seen, queued = 0, 0, 0

-- URLs arrive grouped by host (the client sorts them): per-host work is done once per group.
local function flush(host, by_tier, count)
  if count == 0 then return end
  local hkey = prefix .. 'h:' .. host
  if redis.call('HSETNX', hkey, 'created', now) == 1 then
    redis.call('HINCRBY', stats_key, 'hosts', 1)
    apply_suffix_policy(prefix, hkey, host)
  end
  if redis.call('HGET', hkey, 'parked') == '1' then
    local reason = redis.call('HGET', hkey, 'park_reason') or 'parked'
    for tier, entries in pairs(by_tier) do
      for _, entry in ipairs(entries) do dead_letter(dead_key, stats_key, host, tier, reason, entry, now) end
    end
    return
  end
  for tier, entries in pairs(by_tier) do
    for i = 1, #entries, 1000 do
      redis.call('RPUSH', queue_key(prefix, tier, host), unpack(entries, i, math.min(i + 999, #entries)))
    end
  end
  redis.call('HINCRBY', hkey, 'n', count)
  queued = queued + count
  make_ready(ready_key, hkey, host)
end

local cur_host, by_tier, count = nil, {}, 0
for i = 5, #ARGV, 4 do
  local fp, host, tier, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if host ~= cur_host then
    if cur_host then flush(cur_host, by_tier, count) end
    cur_host, by_tier, count = host, {}, 0
  end
  local new
  if tier == 'r' then
    new = redis.call('SADD', prefix .. 'rq', fp) == 1
    -- Seen from now on too: a link to it is not queued beside the waiting re-crawl.
    if new then seen_add(seen_key, fp, mode, m, k) end
  else
    new = seen_add(seen_key, fp, mode, m, k)
  end
  if new then
    accepted = accepted + 1
    if tier ~= 'r' then accepted_seen = accepted_seen + 1 end
    local list = by_tier[tier]
    if not list then list = {}; by_tier[tier] = list end
    list[#list + 1] = entry
    count = count + 1
  end
end
if cur_host then flush(cur_host, by_tier, count) end
if accepted_seen > 0 then redis.call('HINCRBY', stats_key, 'accepted', accepted_seen) end
if queued > 0 then redis.call('HINCRBY', stats_key, 'queued', queued) end
return accepted
