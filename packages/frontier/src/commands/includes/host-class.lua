-- A host's priority class, 0 (highest) to 9, decides which due hosts a lease hands out first
-- (includes/make-ready.lua). Host hash fields:
--   `seed_prio`  the best (lowest) priority of the seeds enqueued for the host;
--   `in_sites`   distinct other sites that linked to it, as 8-hex-digit ids, at most MAX_IN_SITES;
--   `demoted`    classes taken off by Frontier.demoteHost (trap-heavy hosts), with `demote_reason`;
--   `prio`       the class they make (absent: DISCOVERED_CLASS).
-- The base is the seed priority, else DISCOVERED_CLASS. In-links from 2 / 4 / 8 other sites raise
-- it by 1 / 2 / 3 classes, but never above LINK_TOP_CLASS (a seed's own better class stays): so
-- no link farm, sitemap or single hostile site puts a host in the top classes, which only an
-- operator's seeds reach. Demotion then lowers it, down to the last class.
local LINK_TOP_CLASS = 2
local SITE_ID_LEN = 8
local MAX_IN_SITES = 8

local function inlink_raise(sites)
  if sites >= 8 then return 3 elseif sites >= 4 then return 2 elseif sites >= 2 then return 1 end
  return 0
end

local function class_of(seed_prio, sites, demoted)
  local base = seed_prio or DISCOVERED_CLASS
  local raised = math.max(base - inlink_raise(sites), math.min(base, LINK_TOP_CLASS))
  return math.max(0, math.min(HOST_CLASSES - 1, raised + demoted))
end

-- Recomputes the host's class from its fields, stores it and moves the host between class sets
-- when it changed. Returns the class.
local function refresh_class(ready_key, hkey, host)
  local h = redis.call('HMGET', hkey, 'prio', 'seed_prio', 'in_sites', 'demoted')
  local old = tonumber(h[1] or DISCOVERED_CLASS)
  local new = class_of(tonumber(h[2] or ''), math.floor(#(h[3] or '') / SITE_ID_LEN), tonumber(h[4] or '0'))
  if h[1] == false or new ~= old then redis.call('HSET', hkey, 'prio', new) end
  if new ~= old then ready_move(ready_key, host, old, new) end
  return new
end

-- Adds referring site ids (distinct, up to MAX_IN_SITES). Returns true when any was new.
local function add_in_sites(hkey, ids)
  local s = redis.call('HGET', hkey, 'in_sites') or ''
  local before = #s
  for _, id in ipairs(ids) do
    if #s >= MAX_IN_SITES * SITE_ID_LEN then break end
    local known = false
    for i = 1, #s, SITE_ID_LEN do
      if string.sub(s, i, i + SITE_ID_LEN - 1) == id then known = true; break end
    end
    if not known then s = s .. id end
  end
  if #s == before then return false end
  redis.call('HSET', hkey, 'in_sites', s)
  return true
end
