--[[
  Ends a host lease at a failed URL (timeout, 5xx, 429…), fenced by lease id. URLs before it are
  done; the failed one is retried later (its attempt count grows) or, at the attempt limit,
  dead-lettered with the error; the rest return to the head of their tier lists. The host backs
  off: its consecutive-error count grows and its next allowed time becomes
  now + max(Retry-After, base × 2^(errors-1)), capped.

  Input:
    KEYS[1] ready    KEYS[2] leases    KEYS[3] stats    KEYS[4] dead
    ARGV[1] key prefix of the shard
    ARGV[2] lease id
    ARGV[3] index of the failed URL in the batch (0-based; earlier ones are done, and later ones
            with a progress mark: finished on another connection)
    ARGV[4] error code (e.g. 'timeout', '5xx', '429')
    ARGV[5] Retry-After from the server (ms, 0 when none)
    ARGV[6] attempts before a URL is dead-lettered
    ARGV[7] backoff base (ms)
    ARGV[8] backoff cap (ms)
    ARGV[9] the host's IP address as connected, or ''
    ARGV[10] gap between two leases of hosts on one IP (ms)
  Output:
    { returned, dead_lettered (0/1), delay_ms }, or STALE_LEASE (-1, see
    includes/script-replies.lua) when the lease is not current
]]
local ready_key, leases_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, lease_id, index, err = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local retry_after, max_attempts = tonumber(ARGV[5]), tonumber(ARGV[6])
local base, cap, ip, ip_gap = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9], tonumber(ARGV[10])
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/daily-budget"
--- @include "includes/close-batch"
--- @include "includes/shard-moving"
--- @include "includes/script-replies"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local now = now_ms()
local host, hkey, rest, marked = close_batch(prefix, lease_id, index)
if not host then return STALE_LEASE end
local dead = 0
if #rest > 0 then
  local tier, fp, attempts, tail = string.match(rest[1], '^(%w)|(%x+)|(%d+)|(.*)$')
  attempts = tonumber(attempts) + 1
  if attempts >= max_attempts then
    -- A re-crawl stays in `rq` while dead-lettered (as when a host is parked), so it cannot be
    -- enqueued again beside its dead letter and come back twice when re-queued.
    dead_letter(dead_key, stats_key, host, tier, err, fp .. '|' .. attempts .. '|' .. tail, now)
    table.remove(rest, 1)
    dead = 1
  else
    rest[1] = tier .. '|' .. fp .. '|' .. attempts .. '|' .. tail
  end
end

local errors = redis.call('HINCRBY', hkey, 'errors', 1)
local delay = math.max(retry_after, math.min(cap, base * 2 ^ (errors - 1)))
end_lease(prefix, leases_key, hkey, lease_id, now + delay, ip_gap, now, ip)
budget_use(hkey, math.floor(now / 86400000), index + 1 + marked)
redis.call('HSET', hkey, 'last_error', err)
redis.call('HINCRBY', stats_key, 'processed', index + marked)
redis.call('HINCRBY', stats_key, 'failed', 1)
push_back_head(prefix, hkey, stats_key, host, rest)
make_ready(ready_key, hkey, host)
return { #rest, dead, delay }
