--[[
  Puts a page of dead letters back into their hosts' queues (oldest first) with their attempt
  count reset, and un-parks their hosts. An operator's "try again", one page a call so that a
  long list never holds Redis: without a host, the first letters of the list (LPOP); with one,
  the `page` letters from `cursor`, taking that host's (the others stay, in order). A letter
  goes to its tier's head while there is room, else it spills as any new URL would
  (includes/spill.lua); an un-parked host with URLs spilled meanwhile asks for its refill.

  Input:
    KEYS[1] ready    KEYS[2] stats    KEYS[3] dead
    ARGV[1] key prefix of the shard
    ARGV[2] most entries to re-queue
    ARGV[3] only this host's entries, or '' for any
    ARGV[4] where to start looking (an index of the list; with a host only)
    ARGV[5] most entries to look at
    ARGV[6] head bound (0 = no bound)
    ARGV[7] low-water mark of a head
  Output:
    { URLs re-queued, index to look from next, or -1 when the list was looked at to its end }
]]
local ready_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, limit, only = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local cursor, page = tonumber(ARGV[4]), tonumber(ARGV[5])
local head, low = tonumber(ARGV[6]), tonumber(ARGV[7])
--- @include "includes/keys"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/spill"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local TOMB = '\0requeued'
local moved, bytes, hosts = 0, 0, {}

local function requeue(raw)
  local d = cjson.decode(raw)
  local fp, tail = string.match(d.e, '^(%x+)|%d+|(.*)$')
  local hkey = host_key(prefix, d.h)
  redis.call('HDEL', hkey, 'parked', 'park_reason', 'errors')
  local entry = fp .. '|0|' .. tail
  if head_room(prefix, hkey, d.h, d.q, head) > 0 then
    redis.call('RPUSH', queue_key(prefix, d.q, d.h), entry)
    redis.call('HINCRBY', hkey, 'n', 1)
    redis.call('HINCRBY', stats_key, 'queued', 1)
  else
    spill_entries(prefix, stats_key, hkey, d.h, d.q, { entry }, 1)
  end
  if d.q == 'r' then redis.call('SADD', recrawl_pending_key(prefix), fp) end
  -- Letters from before the per-reason counts existed have none to lower.
  local by_reason = 'dead:' .. tostring(d.r)
  if tonumber(redis.call('HGET', stats_key, by_reason) or '0') > 0 then
    redis.call('HINCRBY', stats_key, by_reason, -1)
  end
  hosts[d.h] = hkey
  moved = moved + 1
  bytes = bytes + #raw
end

local next_at
if only == '' then
  local rows = redis.call('LPOP', dead_key, math.min(limit, page)) or {}
  for _, raw in ipairs(rows) do requeue(raw) end
  next_at = redis.call('LLEN', dead_key) > 0 and 0 or -1
else
  local rows = redis.call('LRANGE', dead_key, cursor, cursor + page - 1)
  local looked, tombs = 0, 0
  for i, raw in ipairs(rows) do
    if moved >= limit then break end
    looked = i
    if cjson.decode(raw).h == only then
      requeue(raw)
      redis.call('LSET', dead_key, cursor + i - 1, TOMB)
      tombs = tombs + 1
    end
  end
  -- LREM from the head stops at the last tombstone: the work is bounded by cursor + page.
  if tombs > 0 then redis.call('LREM', dead_key, tombs, TOMB) end
  local done = #rows < page and looked == #rows
  next_at = done and -1 or cursor + looked - tombs
end
for host, hkey in pairs(hosts) do
  make_ready(ready_key, hkey, host)
  request_refill(prefix, hkey, host, low)
end
if moved > 0 then
  redis.call('HINCRBY', stats_key, 'dead', 0 - moved)
  redis.call('HINCRBY', stats_key, 'dead_bytes', 0 - bytes)
end
return { moved, next_at }
