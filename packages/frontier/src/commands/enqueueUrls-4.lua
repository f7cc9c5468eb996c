--[[
  Adds URLs to their hosts' queues. A discovery URL is accepted once per url_fp (the shard's seen
  set); a re-crawl URL is accepted when it is not already waiting for a re-crawl (the shard's
  `rq` set), so a url_fp is in the frontier at most once at a time. Seeds and links from other
  sites also set their host's priority class (includes/host-class.lua).

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms)
    KEYS[2] seen     Bloom filter's layer 0 (includes/seen-set.lua), or a set in exact mode
    KEYS[3] stats    hash of shard counters
    KEYS[4] dead     list of dead letters
    ARGV[1] key prefix of the shard, e.g. "crawl:{7}:" (per-host keys are built from it)
    ARGV[2] seen mode: 'bloom' or 'set'
    ARGV[3] Bloom spec `m:k:c:p`: layer 0's bits, hashes and capacity, target FP rate
    ARGV[4] cap of the shard's maybe-seen candidates to confirm (0 = note none)
    ARGV[5] head bound: URLs per host tier kept in Redis, the rest spilled (0 = no bound;
            includes/spill.lua)
    ARGV[6] low-water mark of a head: a spilled tier's head under it asks for a refill
    ARGV[7..] quadruples: url_fp, host, tier ('0'..'9', or 'r' for a re-crawl), entry — grouped
            by host (all URLs of a host together, in order). A quadruple with an empty url_fp
            is a signal about its host, applied whether or not any URL is new:
            '', host, 'S', seed priority ('0'..'9') — a seed was enqueued for the host;
            '', host, 'I', site id (8 hex digits) — a page of another site linked to the host.
  Output:
    number of URLs accepted
]]
local ready_key, seen_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
local head, low = tonumber(ARGV[5]), tonumber(ARGV[6])
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
--- @include "includes/host-class"
--- @include "includes/seen-set"
--- @include "includes/shard-moving"
--- @include "includes/suffix-policy"
--- @include "includes/spill"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local seen = seen_open(seen_key, ARGV[2], ARGV[3], ARGV[4])
local recrawl_pending = recrawl_pending_key(prefix)
local now = now_ms()
local accepted, accepted_seen, queued = 0, 0, 0

-- URLs arrive grouped by host (the client sorts them): per-host work is done once per group.
-- `seed` is the best seed priority of the group (or nil), `sites` the referring sites' ids.
local function flush(host, by_tier, count, seed, sites)
  if count == 0 and not seed and #sites == 0 then return end
  local hkey = host_key(prefix, host)
  if redis.call('HSETNX', hkey, 'created', now) == 1 then
    redis.call('HINCRBY', stats_key, 'hosts', 1)
    apply_suffix_policy(prefix, hkey, host)
  end
  local changed = false
  if seed and seed < tonumber(redis.call('HGET', hkey, 'seed_prio') or HOST_CLASSES) then
    redis.call('HSET', hkey, 'seed_prio', seed)
    changed = true
  end
  if #sites > 0 and add_in_sites(hkey, sites) then changed = true end
  if changed then refresh_class(ready_key, hkey, host) end
  if count == 0 then return end
  if redis.call('HGET', hkey, 'parked') == '1' then
    local reason = redis.call('HGET', hkey, 'park_reason') or 'parked'
    for tier, entries in pairs(by_tier) do
      for _, entry in ipairs(entries) do dead_letter(dead_key, stats_key, host, tier, reason, entry, now) end
    end
    return
  end
  local spilled = 0
  for tier, entries in pairs(by_tier) do
    -- The head takes what fits; the rest spills (in order) to the overflow list.
    local fit = math.min(#entries, head_room(prefix, hkey, host, tier, head))
    for i = 1, fit, 1000 do
      redis.call('RPUSH', queue_key(prefix, tier, host), unpack(entries, i, math.min(i + 999, fit)))
    end
    spilled = spilled + spill_entries(prefix, stats_key, hkey, host, tier, entries, fit + 1)
  end
  redis.call('HINCRBY', hkey, 'n', count - spilled)
  queued = queued + count - spilled
  if spilled > 0 then request_refill(prefix, hkey, host, low) end
  make_ready(ready_key, hkey, host)
end

local cur_host, by_tier, count, seed, sites = nil, {}, 0, nil, {}
for i = 7, #ARGV, 4 do
  local fp, host, tier, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if host ~= cur_host then
    if cur_host then flush(cur_host, by_tier, count, seed, sites) end
    cur_host, by_tier, count, seed, sites = host, {}, 0, nil, {}
  end
  if fp == '' then
    if tier == 'S' then
      local p = tonumber(entry)
      if p and (not seed or p < seed) then seed = p end
    elseif tier == 'I' then
      sites[#sites + 1] = entry
    end
  else
    local new
    if tier == 'r' then
      new = redis.call('SADD', recrawl_pending, fp) == 1
      -- Seen from now on too: a link to it is not queued beside the waiting re-crawl.
      if new then seen_add(seen, fp) end
    else
      new = seen_add(seen, fp, host, tier, entry)
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
end
if cur_host then flush(cur_host, by_tier, count, seed, sites) end
seen_close(seen)
if accepted_seen > 0 then redis.call('HINCRBY', stats_key, 'accepted', accepted_seen) end
if queued > 0 then redis.call('HINCRBY', stats_key, 'queued', queued) end
return accepted
