--[[
  Reclaims expired leases, then leases up to N ready hosts (next allowed time <= now, no open
  lease, daily budget left, their IP free), each with a batch of URLs sized to fit the lease at
  the host's pace. The batch mixes tiers by smooth weighted round-robin (so low tiers still
  progress) and gives re-crawls their share when both kinds wait.

  Input:
    KEYS[1] ready    zset host -> next allowed time (ms)
    KEYS[2] leases   zset lease_id -> deadline (ms)
    KEYS[3] stats    hash of shard counters
    ARGV[1] key prefix of the shard
    ARGV[2] agent id
    ARGV[3] max hosts
    ARGV[4] lease length (ms)
    ARGV[5] max URLs per lease
    ARGV[6] default gap between requests (ms)
    ARGV[7] shard number (goes into lease ids)
    ARGV[8] tier weights "w0,w1,w2,w3"
    ARGV[9] re-crawl share (0..1)
    ARGV[10] default daily budget per host (0 = unlimited)
    ARGV[11] retry delay for a host whose IP is busy (ms)
  Output:
    array of { lease_id, host, lease_ms, gap_ms, ip or '', { tier|entry, ... }, max_conn }
]]
local ready_key, leases_key, stats_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, agent = ARGV[1], ARGV[2]
local max_hosts, lease_ms = tonumber(ARGV[3]), tonumber(ARGV[4])
local max_urls, default_gap = tonumber(ARGV[5]), tonumber(ARGV[6])
local shard = ARGV[7]
local weights = {}
for w in string.gmatch(ARGV[8], '%d+') do weights[#weights + 1] = tonumber(w) end
local share, default_budget, ip_retry = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/reclaim-expired"
--- @include "includes/daily-budget"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return {} end
local now = now_ms()
local today = math.floor(now / 86400000)
reclaim_expired(prefix, ready_key, leases_key, stats_key, now, 100)

-- Smooth weighted round-robin order of the four tiers (e.g. 8,4,2,1 -> 15 slots).
local schedule, current, total = {}, { 0, 0, 0, 0 }, 0
for t = 1, 4 do total = total + weights[t] end
for _ = 1, total do
  local best = 1
  for t = 1, 4 do
    current[t] = current[t] + weights[t]
    if current[t] > current[best] then best = t end
  end
  current[best] = current[best] - total
  schedule[#schedule + 1] = best - 1
end

-- Takes up to `batch` entries from a host's tiers; returns them tagged with their tier.
local function take_batch(hkey, host, batch)
  local lens, discovery = {}, 0
  for t = 0, 3 do
    lens[t] = redis.call('LLEN', queue_key(prefix, tostring(t), host))
    discovery = discovery + lens[t]
  end
  local recrawl_len = redis.call('LLEN', queue_key(prefix, 'r', host))
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
  local counts = { [0] = 0, 0, 0, 0 }
  local rr = tonumber(redis.call('HGET', hkey, 'rr') or '0')
  for _ = 1, nd do
    local picked = nil
    for step = 0, #schedule - 1 do
      local t = schedule[((rr + step) % #schedule) + 1]
      if counts[t] < lens[t] then picked = t; break end
    end
    if picked == nil then
      for t = 0, 3 do if counts[t] < lens[t] then picked = t; break end end
    end
    counts[picked] = counts[picked] + 1
    rr = rr + 1
  end
  redis.call('HSET', hkey, 'rr', rr % #schedule)
  local out = {}
  for t = 0, 3 do
    if counts[t] > 0 then
      for _, e in ipairs(redis.call('LPOP', queue_key(prefix, tostring(t), host), counts[t])) do out[#out + 1] = t .. '|' .. e end
    end
  end
  if nr > 0 then
    for _, e in ipairs(redis.call('LPOP', queue_key(prefix, 'r', host), nr)) do out[#out + 1] = 'r|' .. e end
  end
  return out
end

local out = {}
local hosts = redis.call('ZRANGEBYSCORE', ready_key, '-inf', now, 'LIMIT', 0, max_hosts)
for _, host in ipairs(hosts) do
  redis.call('ZREM', ready_key, host)
  local hkey = prefix .. 'h:' .. host
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'gap_ms', 'pace_ms', 'ip', 'n', 'max_conn')
  if not h[1] and h[2] ~= '1' and h[3] ~= '1' and tonumber(h[7] or '0') > 0 then
    local left = budget_left(hkey, today, default_budget)
    local ip = h[6]
    local ipkey = ip and (prefix .. 'ip:' .. ip) or nil
    local ipstate = ipkey and redis.call('HMGET', ipkey, 'lease', 'deadline', 'next_at') or {}
    if left <= 0 then
      -- Budget spent: the host waits for the next UTC day.
      redis.call('ZADD', ready_key, (today + 1) * 86400000, host)
    elseif ipkey and ((ipstate[1] and tonumber(ipstate[2] or '0') > now) or tonumber(ipstate[3] or '0') > now) then
      -- Another host on the same address is being fetched (or the address needs a pause).
      redis.call('ZADD', ready_key, math.max(now + ip_retry, tonumber(ipstate[3] or '0')), host)
    else
      local gap = tonumber(h[4] or default_gap)
      local pace = math.max(gap, tonumber(h[5] or '0'), 1)
      local batch = math.max(1, math.min(max_urls, left, math.floor(lease_ms * 0.5 / pace)))
      local tagged = take_batch(hkey, host, batch)
      if #tagged == 0 then
        -- The counter drifted from the lists (should not happen): trust the lists.
        redis.call('HSET', hkey, 'n', 0)
      else
      local lease_id = shard .. '-' .. redis.call('HINCRBY', stats_key, 'lease_seq', 1)
      local deadline = now + lease_ms
      redis.call('RPUSH', prefix .. 'lq:' .. host, unpack(tagged))
      redis.call('HSET', hkey, 'lease', lease_id, 'lease_agent', agent, 'lease_deadline', deadline)
      redis.call('HINCRBY', hkey, 'n', 0 - #tagged)
      redis.call('ZADD', leases_key, deadline, lease_id)
      redis.call('HSET', prefix .. 'l:' .. lease_id, 'host', host)
      redis.call('HINCRBY', stats_key, 'queued', 0 - #tagged)
      if ipkey then redis.call('HSET', ipkey, 'lease', lease_id, 'deadline', deadline) end
      out[#out + 1] = { lease_id, host, lease_ms, gap, ip or '', tagged, tonumber(h[8] or '1') }
      end
    end
  end
end
return out
