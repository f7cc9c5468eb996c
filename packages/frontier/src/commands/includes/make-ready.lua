-- The ready set, kept in two views of the same hosts — those with work, no open lease, not
-- blocked, not parked — each scored by the host's next allowed time (ms):
--   `ready`      every such host (the counts, budget and inspector reads use it);
--   `ready:<c>`  the hosts of host priority class c, 0 (highest) to 9, which the lease script
--                drains highest class first (includes/host-class.lua says how a class is set).
-- Every change goes through these helpers, so a host is in `ready` exactly when it is in
-- `ready:<its class>`, with the same score. Class sets share the ready key's hash tag (slot).
local HOST_CLASSES = 10
-- The class of a host with no seed, no counted in-links and no demotion (and of hosts whose hash
-- predates host classes: no `prio` field).
local DISCOVERED_CLASS = 5

local function ready_class_key(ready_key, class)
  return ready_key .. ':' .. class
end

local function host_class(hkey)
  return tonumber(redis.call('HGET', hkey, 'prio') or DISCOVERED_CLASS)
end

-- Adds (or re-scores) a host in both views. With nx, a host already ready keeps its score.
local function ready_add(ready_key, host, class, score, nx)
  if nx then
    if redis.call('ZADD', ready_key, 'NX', score, host) == 1 then
      redis.call('ZADD', ready_class_key(ready_key, class), score, host)
    end
  else
    redis.call('ZADD', ready_key, score, host)
    redis.call('ZADD', ready_class_key(ready_key, class), score, host)
  end
end

local function ready_remove(ready_key, host, class)
  redis.call('ZREM', ready_key, host)
  redis.call('ZREM', ready_class_key(ready_key, class), host)
end

-- Moves a ready host from one class set to another, keeping its score.
local function ready_move(ready_key, host, old, new)
  local score = redis.call('ZSCORE', ready_key, host)
  redis.call('ZREM', ready_class_key(ready_key, old), host)
  if score then redis.call('ZADD', ready_class_key(ready_key, new), score, host) end
end

-- Puts a host in the ready set at its next allowed time when it has work and may be leased:
-- URLs queued, no open lease, not blocked, not parked. NX keeps an earlier score.
local function make_ready(ready_key, hkey, host)
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'next_at', 'n', 'prio')
  if h[1] or h[2] == '1' or h[3] == '1' then return end
  if tonumber(h[5] or '0') <= 0 then return end
  ready_add(ready_key, host, tonumber(h[6] or DISCOVERED_CLASS), tonumber(h[4] or '0'), true)
end
