--[[
  Completes a host lease, fenced by lease id: a late agent whose lease expired (and was
  reclaimed or re-leased) changes nothing. The first `processed` URLs of the batch are done;
  the rest return to the head of the host's queue in order. The host's next allowed time
  becomes now + delay. With park = 1 the host is parked (e.g. robots.txt keeps failing): its
  unprocessed and queued URLs move to the dead-letter list with the reason.

  Input:
    KEYS[1] ready    zset host -> next allowed time (ms)
    KEYS[2] leases   zset lease_id -> deadline (ms)
    KEYS[3] stats    hash of shard counters
    KEYS[4] dead     list of dead letters
    ARGV[1] key prefix of the shard
    ARGV[2] lease id
    ARGV[3] processed count (a prefix of the batch)
    ARGV[4] delay before the host's next request (ms)
    ARGV[5] pace (ms): the host's current gap, used to size its next batch
    ARGV[6] park: '1' to park the host
    ARGV[7] park reason
  Output:
    number of URLs returned to the queue (or dead-lettered), or -1 when the lease is not current
]]
local ready_key, leases_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, lease_id = ARGV[1], ARGV[2]
local processed, delay, pace = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local park, reason = ARGV[6] == '1', ARGV[7]
--- @include "includes/now-ms"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
local now = now_ms()
local lkey = prefix .. 'l:' .. lease_id
local host = redis.call('HGET', lkey, 'host')
if not host then return -1 end
local hkey = prefix .. 'h:' .. host
if redis.call('HGET', hkey, 'lease') ~= lease_id then return -1 end
local qkey = prefix .. 'q:' .. host
local lqkey = prefix .. 'lq:' .. host

local rest = redis.call('LRANGE', lqkey, processed, -1)
redis.call('DEL', lqkey, lkey)
redis.call('ZREM', leases_key, lease_id)
redis.call('HDEL', hkey, 'lease', 'lease_agent', 'lease_deadline')
redis.call('HSET', hkey, 'next_at', now + delay, 'pace_ms', pace)
redis.call('HINCRBY', stats_key, 'processed', processed)

if park then
  redis.call('HSET', hkey, 'parked', '1', 'park_reason', reason)
  for _, entry in ipairs(rest) do dead_letter(dead_key, stats_key, host, reason, entry, now) end
  local queued = redis.call('LRANGE', qkey, 0, -1)
  for _, entry in ipairs(queued) do dead_letter(dead_key, stats_key, host, reason, entry, now) end
  redis.call('DEL', qkey)
  redis.call('HINCRBY', stats_key, 'queued', 0 - #queued)
  return #rest + #queued
end

for i = #rest, 1, -1 do redis.call('LPUSH', qkey, rest[i]) end
redis.call('HINCRBY', stats_key, 'queued', #rest)
make_ready(ready_key, hkey, qkey, host)
return #rest
