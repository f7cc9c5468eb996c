--[[
  Reclaims expired leases, then leases up to N ready hosts (next allowed time <= now, no open
  lease), each with a batch of its URLs sized to fit the lease at the host's pace.

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
  Output:
    array of { lease_id, host, lease_ms, gap_ms, { entry, ... } }
]]
local ready_key, leases_key, stats_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, agent = ARGV[1], ARGV[2]
local max_hosts, lease_ms = tonumber(ARGV[3]), tonumber(ARGV[4])
local max_urls, default_gap = tonumber(ARGV[5]), tonumber(ARGV[6])
local shard = ARGV[7]
--- @include "includes/now-ms"
--- @include "includes/make-ready"
--- @include "includes/reclaim-expired"
local now = now_ms()
reclaim_expired(prefix, ready_key, leases_key, stats_key, now, 100)

local out = {}
local hosts = redis.call('ZRANGEBYSCORE', ready_key, '-inf', now, 'LIMIT', 0, max_hosts)
for _, host in ipairs(hosts) do
  redis.call('ZREM', ready_key, host)
  local hkey = prefix .. 'h:' .. host
  local qkey = prefix .. 'q:' .. host
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'gap_ms', 'pace_ms')
  if not h[1] and h[2] ~= '1' and h[3] ~= '1' then
    local gap = tonumber(h[4] or default_gap)
    local pace = math.max(gap, tonumber(h[5] or '0'), 1)
    local batch = math.max(1, math.min(max_urls, math.floor(lease_ms * 0.5 / pace)))
    local entries = redis.call('LPOP', qkey, batch)
    if entries then
      local lease_id = shard .. '-' .. redis.call('HINCRBY', stats_key, 'lease_seq', 1)
      local deadline = now + lease_ms
      redis.call('RPUSH', prefix .. 'lq:' .. host, unpack(entries))
      redis.call('HSET', hkey, 'lease', lease_id, 'lease_agent', agent, 'lease_deadline', deadline)
      redis.call('ZADD', leases_key, deadline, lease_id)
      redis.call('HSET', prefix .. 'l:' .. lease_id, 'host', host)
      redis.call('HINCRBY', stats_key, 'queued', 0 - #entries)
      out[#out + 1] = { lease_id, host, lease_ms, gap, entries }
    end
  end
end
return out
