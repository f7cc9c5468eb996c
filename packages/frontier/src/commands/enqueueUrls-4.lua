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
    ARGV[5..] quadruples: url_fp, host, tier ('0'..'3', or 'r' for a re-crawl), entry
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
local now = now_ms()
local accepted = 0
for i = 5, #ARGV, 4 do
  local fp, host, tier, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local new
  if tier == 'r' then
    new = redis.call('SADD', prefix .. 'rq', fp) == 1
  else
    new = seen_add(seen_key, fp, mode, m, k)
  end
  if new then
    accepted = accepted + 1
    if tier ~= 'r' then redis.call('HINCRBY', stats_key, 'accepted', 1) end
    local hkey = prefix .. 'h:' .. host
    if redis.call('HSETNX', hkey, 'created', now) == 1 then
      redis.call('HINCRBY', stats_key, 'hosts', 1)
    end
    if redis.call('HGET', hkey, 'parked') == '1' then
      dead_letter(dead_key, stats_key, host, tier, redis.call('HGET', hkey, 'park_reason') or 'parked', entry, now)
    else
      redis.call('RPUSH', queue_key(prefix, tier, host), entry)
      redis.call('HINCRBY', hkey, 'n', 1)
      redis.call('HINCRBY', stats_key, 'queued', 1)
      make_ready(ready_key, hkey, host)
    end
  end
end
return accepted
