--- @include "includes/keys"
-- The ready set: the hosts with work, no open lease, not blocked, not parked, each scored by the
-- host's next allowed time (ms), kept in one sorted set per host priority class, `ready:<c>`, c
-- from 0 (highest) to 9 (includes/host-class.lua says how a class is set). The lease script drains
-- due hosts highest class first; counts, budgets and inspector reads sum or merge the ten sets.
-- Every change goes through these helpers, so a ready host is in exactly one class set: its
-- class's. Class sets share the ready key's hash tag (slot); scripts build them from it.
-- The ready key itself (`ready`) is legacy: releases before this one kept every ready host there
-- too (same score). No script writes it now; the lease and stats scripts move what is left of it
-- into the class sets (ready_drain_legacy), and a host's removal also takes it out of there.
local HOST_CLASSES = 10
-- The class of a host with no seed, no counted in-links and no demotion (and of hosts whose hash
-- predates host classes: no `prio` field).
local DISCOVERED_CLASS = 5
-- Legacy hosts moved into class sets per lease or stats call.
local READY_DRAIN_LIMIT = 1000

local function host_class(hkey)
  return tonumber(redis.call('HGET', hkey, 'prio') or DISCOVERED_CLASS)
end

-- Whether the legacy `ready` set still holds hosts: asked once per script run (no script adds to
-- it, so a false answer stays true to the end of the run).
local legacy_ready_left = nil
local function legacy_ready(ready_key)
  if legacy_ready_left == nil then legacy_ready_left = redis.call('EXISTS', ready_key) == 1 end
  return legacy_ready_left
end

-- Adds (or re-scores) a host in its class set. With nx, a host already ready keeps its score
-- (one still in the legacy set moves to its class set with that score).
local function ready_add(ready_key, host, class, score, nx)
  local key = ready_class_key(ready_key, class)
  if nx then
    if legacy_ready(ready_key) then
      local old = redis.call('ZSCORE', ready_key, host)
      if old then
        redis.call('ZREM', ready_key, host)
        score = old
      end
    end
    redis.call('ZADD', key, 'NX', score, host)
  else
    redis.call('ZADD', key, score, host)
  end
end

local function ready_remove(ready_key, host, class)
  redis.call('ZREM', ready_class_key(ready_key, class), host)
  if legacy_ready(ready_key) then redis.call('ZREM', ready_key, host) end
end

-- A host's ready score (its next allowed time) in class `class`'s set, else in the legacy set;
-- nil when it is not ready.
local function ready_score(ready_key, host, class)
  local score = redis.call('ZSCORE', ready_class_key(ready_key, class), host)
  if not score and legacy_ready(ready_key) then score = redis.call('ZSCORE', ready_key, host) end
  return score
end

-- Moves a ready host from one class set to another, keeping its score. (A host still only in
-- the legacy set gets its new class when it is drained.)
local function ready_move(ready_key, host, old, new)
  local score = redis.call('ZSCORE', ready_class_key(ready_key, old), host)
  if score then
    redis.call('ZREM', ready_class_key(ready_key, old), host)
    redis.call('ZADD', ready_class_key(ready_key, new), score, host)
  end
end

-- Sums a counting command (ZCOUNT with its range, or ZCARD) over the class sets and what is left
-- of the legacy set (a host there and in its class set, as the previous release left it, counts
-- twice until drained). With safe, a class set the node cannot serve (the shard's slot is
-- moving: includes/shard-moving.lua) counts 0 instead of failing the script.
local function ready_sum(ready_key, safe, cmd, ...)
  local n = redis.call(cmd, ready_key, ...)
  for class = 0, HOST_CLASSES - 1 do
    local c = (safe and redis.pcall or redis.call)(cmd, ready_class_key(ready_key, class), ...)
    if type(c) == 'number' then n = n + c end
  end
  return n
end

-- Ready hosts scored in [min, max].
local function ready_count(ready_key, min, max, safe)
  return ready_sum(ready_key, safe, 'ZCOUNT', min, max)
end

-- Every ready host, due or not.
local function ready_card(ready_key, safe)
  return ready_sum(ready_key, safe, 'ZCARD')
end

-- Moves up to READY_DRAIN_LIMIT hosts of the legacy set into their class sets (a class set's
-- score, when the host is there already, stays), lowest scores first, until the set is gone.
local function ready_drain_legacy(prefix, ready_key, stats_key)
  if not legacy_ready(ready_key) then return 0 end
  local r = redis.call('ZRANGE', ready_key, 0, READY_DRAIN_LIMIT - 1, 'WITHSCORES')
  for i = 1, #r, 2 do
    redis.call('ZADD', ready_class_key(ready_key, host_class(host_key(prefix, r[i]))), 'NX', r[i + 1], r[i])
  end
  local moved = #r / 2
  if moved > 0 then redis.call('ZREMRANGEBYRANK', ready_key, 0, moved - 1) end
  if moved < READY_DRAIN_LIMIT then
    legacy_ready_left = false
    -- The copy cursor of the release before (its scan copied without removing).
    redis.call('HDEL', stats_key, 'ready_scan')
  end
  return moved
end

-- Puts a host in the ready set at its next allowed time when it has work and may be leased:
-- URLs queued, no open lease, not blocked, not parked. NX keeps an earlier score.
local function make_ready(ready_key, hkey, host)
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'next_at', 'n', 'prio')
  if h[1] or h[2] == '1' or h[3] == '1' then return end
  if tonumber(h[5] or '0') <= 0 then return end
  ready_add(ready_key, host, tonumber(h[6] or DISCOVERED_CLASS), tonumber(h[4] or '0'), true)
end
