--[[
  Reclaims expired leases, then leases up to N ready hosts (next allowed time <= now, no open
  lease, daily budget left, their IP free), highest host priority class first (among due hosts:
  a class never makes a host due earlier), each with a batch of URLs sized to fit the lease at
  the host's pace. The batch shares its slots among the host's waiting priority tiers by smooth
  weighted round-robin (so low tiers still progress, and a host's URLs come out in tier order
  when they fit one batch) and gives re-crawls their share when both kinds wait.

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms);
                     itself a legacy set, drained (includes/make-ready.lua)
    KEYS[2] leases   zset lease_id -> deadline (ms)
    KEYS[3] stats    hash of shard counters
    ARGV[1] key prefix of the shard
    ARGV[2] agent id
    ARGV[3] max hosts
    ARGV[4] longest the agent may work the lease (ms): sizes the batch
    ARGV[5] max URLs per lease
    ARGV[6] default gap between requests (ms)
    ARGV[7] shard number (goes into lease ids)
    ARGV[8] weights of priority tiers 0-9, "w0,w1,...,w9"
    ARGV[9] re-crawl share (0..1)
    ARGV[10] default daily budget per host (0 = unlimited)
    ARGV[11] retry delay for a host whose IP is busy (ms)
    ARGV[12] time to live of the lease until the agent renews it (ms; renewLeases)
    ARGV[13] low-water mark of a head: a spilled tier's head under it asks for a refill
             (0 = spilling off; includes/spill.lua)
  Output:
    array of { lease_id, host, lease_ms, gap_ms, ip or '', { tier|entry, ... }, max_conn }
]]
local ready_key, leases_key, stats_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, agent = ARGV[1], ARGV[2]
local max_hosts, lease_ms = tonumber(ARGV[3]), tonumber(ARGV[4])
local max_urls, default_gap = tonumber(ARGV[5]), tonumber(ARGV[6])
local shard = ARGV[7]
-- Tier t's weight is weights[t] (0-based, as tiers are named).
local weights, weight_sum, tier = {}, 0, 0
for w in string.gmatch(ARGV[8], '%d+') do
  weights[tier] = tonumber(w)
  weight_sum = weight_sum + weights[tier]
  tier = tier + 1
end
local share, default_budget, ip_retry = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local ttl_ms = tonumber(ARGV[12] or ARGV[4])
local low = tonumber(ARGV[13] or '0')
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/reclaim-expired"
--- @include "includes/daily-budget"
--- @include "includes/shard-moving"
--- @include "includes/spill"
if shard_moving(stats_key) then return {} end
local now = now_ms()
local today = math.floor(now / 86400000)
reclaim_expired(prefix, ready_key, leases_key, stats_key, now, 100)

-- Hosts an earlier release left in the legacy `ready` set move into their class sets, up to
-- 1,000 per call (includes/make-ready.lua), until the set is gone.
ready_drain_legacy(prefix, ready_key, stats_key)

-- Takes up to `batch` entries from a host's tiers; returns them tagged with their tier, highest
-- tier first. Re-crawls get their share; the discovery slots go to the tiers with URLs waiting by
-- smooth weighted round-robin: at each pick every waiting tier gains its weight in credit, and the
-- tier with the most credit (the higher tier on a tie) is picked and pays the waiting tiers' total.
-- Credits persist in the host hash (`rr`), so over successive batches each waiting tier gets its
-- weight's share of the slots, however full the higher tiers stay.
-- `queued` is the host's `n`, which every script keeps equal to its queued URLs: the tiers are
-- looked at in order only until all of them are found (most hosts have one or two tiers).
local function take_batch(hkey, host, batch, queued)
  local recrawl_len = redis.call('LLEN', queue_key(prefix, 'r', host))
  local lens, discovery = {}, 0
  for t = 0, PRIORITY_TIERS - 1 do
    if recrawl_len + discovery >= queued then
      lens[t] = 0
    else
      lens[t] = redis.call('LLEN', queue_key(prefix, tostring(t), host))
      discovery = discovery + lens[t]
    end
  end
  local nr = 0
  if recrawl_len > 0 then
    if discovery == 0 then
      nr = math.min(recrawl_len, batch)
    else
      -- The share with a carried remainder, so small batches still average out to it.
      local want = batch * share + tonumber(redis.call('HGET', hkey, 'rcarry') or '0')
      nr = math.min(recrawl_len, math.floor(want))
      redis.call('HSET', hkey, 'rcarry', want - math.floor(want))
    end
  end
  local nd = math.min(batch - nr, discovery)
  if nd < batch - nr then nr = math.min(recrawl_len, batch - nd) end
  local counts, credit, waiting = {}, {}, {}
  for t = 0, PRIORITY_TIERS - 1 do
    counts[t], credit[t] = 0, 0
    if lens[t] > 0 then waiting[#waiting + 1] = t end
  end
  if nd > 0 and #waiting == 1 then
    -- A lone waiting tier takes every slot, and its credit would gain and pay the same.
    counts[waiting[1]] = nd
  elseif nd > 0 then
    local t = 0
    for c in string.gmatch(redis.call('HGET', hkey, 'rr') or '', '[^,]+') do
      if t < PRIORITY_TIERS then credit[t] = tonumber(c) or 0 end
      t = t + 1
    end
    for _ = 1, nd do
      local total, best = 0, nil
      for _, w in ipairs(waiting) do
        if counts[w] < lens[w] then
          total = total + weights[w]
          credit[w] = credit[w] + weights[w]
          if best == nil or credit[w] > credit[best] then best = w end
        end
      end
      credit[best] = credit[best] - total
      counts[best] = counts[best] + 1
    end
    -- Bounded, should weights change between leases.
    local kept = {}
    for w = 0, PRIORITY_TIERS - 1 do
      kept[w + 1] = math.max(-weight_sum, math.min(weight_sum, credit[w]))
    end
    redis.call('HSET', hkey, 'rr', table.concat(kept, ','))
  end
  local out = {}
  for _, w in ipairs(waiting) do
    if counts[w] > 0 then
      for _, e in ipairs(redis.call('LPOP', queue_key(prefix, tostring(w), host), counts[w])) do out[#out + 1] = w .. '|' .. e end
    end
  end
  if nr > 0 then
    for _, e in ipairs(redis.call('LPOP', queue_key(prefix, 'r', host), nr)) do out[#out + 1] = 'r|' .. e end
  end
  return out
end

local out = {}
-- Leases one host taken off the ready set (in class `class`), if it may be leased now.
local function lease_host(host, class)
  ready_remove(ready_key, host, class)
  local hkey = host_key(prefix, host)
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'gap_ms', 'pace_ms', 'ip', 'n', 'max_conn')
  if h[1] or h[2] == '1' or h[3] == '1' or tonumber(h[7] or '0') <= 0 then return end
  local left = budget_left(hkey, today, default_budget)
  local ip = h[6]
  local ipkey = ip and ip_state_key(prefix, ip) or nil
  local ipstate = ipkey and redis.call('HMGET', ipkey, 'lease', 'deadline', 'next_at') or {}
  if left <= 0 then
    -- Budget spent: the host waits for the next UTC day.
    ready_add(ready_key, host, class, (today + 1) * 86400000, false)
    return
  end
  if ipkey and ((ipstate[1] and tonumber(ipstate[2] or '0') > now) or tonumber(ipstate[3] or '0') > now) then
    -- Another host on the same address is being fetched (or the address needs a pause).
    ready_add(ready_key, host, class, math.max(now + ip_retry, tonumber(ipstate[3] or '0')), false)
    return
  end
  local gap = tonumber(h[4] or default_gap)
  local pace = math.max(gap, tonumber(h[5] or '0'), 1)
  local batch = math.max(1, math.min(max_urls, left, math.floor(lease_ms * 0.5 / pace)))
  local tagged = take_batch(hkey, host, batch, tonumber(h[7]))
  request_refill(prefix, hkey, host, low)
  if #tagged == 0 then
    -- The counter drifted from the lists (should not happen): trust the lists.
    redis.call('HSET', hkey, 'n', 0)
    return
  end
  -- The time makes ids unique even when Redis lost its last writes (AOF everysec) or the
  -- frontier was rebuilt: a stale agent's id never names a new lease.
  local lease_id = shard .. '-' .. now .. '-' .. redis.call('HINCRBY', stats_key, 'lease_seq', 1)
  local deadline = now + ttl_ms
  redis.call('RPUSH', leased_batch_key(prefix, host), unpack(tagged))
  redis.call('HSET', hkey, 'lease', lease_id, 'lease_agent', agent, 'lease_deadline', deadline)
  redis.call('HINCRBY', hkey, 'n', 0 - #tagged)
  redis.call('ZADD', leases_key, deadline, lease_id)
  redis.call('HSET', lease_key(prefix, lease_id), 'host', host, 'agent', agent, 'gap', math.max(gap, tonumber(h[5] or '0')))
  redis.call('HINCRBY', stats_key, 'queued', 0 - #tagged)
  if ipkey then redis.call('HSET', ipkey, 'lease', lease_id, 'deadline', deadline) end
  out[#out + 1] = { lease_id, host, lease_ms, gap, ip or '', tagged, tonumber(h[8] or '1') }
end

-- Due hosts, highest class first, at most max_hosts looked at (as many as are handed out when
-- none is refused for its budget or IP).
local looked = 0
for class = 0, HOST_CLASSES - 1 do
  if looked >= max_hosts then break end
  local hosts = redis.call('ZRANGEBYSCORE', ready_class_key(ready_key, class), '-inf', now, 'LIMIT', 0, max_hosts - looked)
  for _, host in ipairs(hosts) do lease_host(host, class) end
  looked = looked + #hosts
end
-- Due hosts still in the legacy set (more of them than one call moves) come last, so none is
-- stranded.
if looked < max_hosts and legacy_ready(ready_key) then
  for _, host in ipairs(redis.call('ZRANGEBYSCORE', ready_key, '-inf', now, 'LIMIT', 0, max_hosts - looked)) do
    lease_host(host, host_class(host_key(prefix, host)))
  end
end
return out
