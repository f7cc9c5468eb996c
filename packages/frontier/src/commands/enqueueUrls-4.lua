--[[
  Adds URLs to their hosts' queues, once per url_fp (the shard's seen set).

  Input:
    KEYS[1] ready    zset host -> next allowed time (ms)
    KEYS[2] seen     set of url_fp
    KEYS[3] stats    hash of shard counters
    KEYS[4] dead     list of dead letters
    ARGV[1] key prefix of the shard, e.g. "crawl:{7}:" (per-host keys are built from it)
    ARGV[2..] triples: url_fp, host, entry (JSON)
  Output:
    number of URLs accepted (new to the seen set)
]]
local ready_key, seen_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix = ARGV[1]
--- @include "includes/now-ms"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
local now = now_ms()
local accepted = 0
for i = 2, #ARGV, 3 do
  local fp, host, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call('SADD', seen_key, fp) == 1 then
    accepted = accepted + 1
    local hkey = prefix .. 'h:' .. host
    local qkey = prefix .. 'q:' .. host
    if redis.call('HSETNX', hkey, 'created', now) == 1 then
      redis.call('HINCRBY', stats_key, 'hosts', 1)
    end
    if redis.call('HGET', hkey, 'parked') == '1' then
      dead_letter(dead_key, stats_key, host, redis.call('HGET', hkey, 'park_reason') or 'parked', entry, now)
    else
      redis.call('RPUSH', qkey, entry)
      redis.call('HINCRBY', stats_key, 'queued', 1)
      make_ready(ready_key, hkey, qkey, host)
    end
  end
end
return accepted
