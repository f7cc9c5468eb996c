--[[
  TrimFeed: reads one partition of the `pages.parsed` feed — its size and what each consumer
  group still needs — and trims its oldest entries while it holds more than the retention,
  never one a group still needs (feed-retention.ts).

  Trims are node-granular (`~`, whole stream nodes: no entry is read), at most ARGV[2] entries a
  call. With consumer groups, `XTRIM MINID ~ <oldest id any group needs> LIMIT <excess>`: only
  nodes below every group's need go, and no more entries than the partition holds over its
  retention ('hold'); or `XTRIM MAXLEN ~ <retention>` regardless ('drop'), each group's entries
  trimmed before it acknowledged them (undelivered ones, from its lag; pending ones, from its
  pending list) added to its count in KEYS[2]. Without groups, `XTRIM MAXLEN ~ <retention>` as
  the feed always did.

  Input:
    KEYS[1] the partition's stream
    KEYS[2] its drop counts (hash: group → entries trimmed before the group had them)
    ARGV[1] entries to keep (the retention)
    ARGV[2] entries trimmed at most by this call
    ARGV[3] 'hold', 'drop', or 'read' (trims nothing)
    ARGV[4], ... groups that are always registered: created at 0 (MKSTREAM) where missing
  Output:
    { length, bytes (MEMORY USAGE), trimmed, more (1: the call trimmed ARGV[2] entries),
      { { group, pending, unread, needs-from id }, ... }, { group, dropped, ... } (KEYS[2]) }
]]
--- @include "includes/feed-position"

local key = KEYS[1]
local keep = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local mode = ARGV[3]

if #ARGV >= 4 then
  local have = {}
  if redis.call('EXISTS', key) == 1 then
    for _, g in ipairs(readGroups(key)) do have[g.name] = true end
  end
  for i = 4, #ARGV do
    if not have[ARGV[i]] then redis.call('XGROUP', 'CREATE', key, ARGV[i], '0', 'MKSTREAM') end
  end
end
local dropped = redis.call('HGETALL', KEYS[2])
if redis.call('EXISTS', key) == 0 then return { 0, 0, 0, 0, {}, dropped } end

local function firstId()
  local e = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1]
  return e and e[1] or nil
end

local groups = readGroups(key)
local length = redis.call('XLEN', key)
local first = firstId()
local floor = nil
for _, g in ipairs(groups) do
  g.needs = groupNeeds(key, g, length, first)
  if not floor or idBefore(g.needs, floor) then floor = g.needs end
end

local trimmed = 0
local excess = length - keep
if mode ~= 'read' and excess > 0 then
  local limit = math.min(excess, cap)
  if #groups == 0 then
    trimmed = redis.call('XTRIM', key, 'MAXLEN', '~', keep, 'LIMIT', limit)
  elseif mode == 'drop' then
    trimmed = redis.call('XTRIM', key, 'MAXLEN', '~', keep, 'LIMIT', limit)
    if trimmed > 0 then
      local left, now = redis.call('XLEN', key), firstId()
      for _, g in ipairs(groups) do
        -- Its pending entries in the trimmed range [first, now), and undelivered ones there.
        local pend = #redis.call('XPENDING', key, g.name, first, now and ('(' .. now) or '+', trimmed)
        local undelivered
        if now and not idBefore(g.last, now) then
          undelivered = 0
        elseif idBefore(g.last, first) or not g.lag then
          undelivered = trimmed
        else
          undelivered = math.max(0, math.min(length, tonumber(g.lag)) - left)
        end
        local lost = math.min(trimmed, pend + undelivered)
        if lost > 0 then redis.call('HINCRBY', KEYS[2], g.name, lost) end
      end
      dropped = redis.call('HGETALL', KEYS[2])
    end
  else
    trimmed = redis.call('XTRIM', key, 'MINID', '~', floor, 'LIMIT', limit)
  end
end
local more = (trimmed >= cap) and 1 or 0

if trimmed > 0 then
  length = redis.call('XLEN', key)
  first = firstId()
end
local out = {}
for _, g in ipairs(groups) do
  local needs, unread = groupNeeds(key, g, length, first)
  out[#out + 1] = { g.name, g.pending, unread, needs }
end
local bytes = redis.call('MEMORY', 'USAGE', key) or 0
return { length, bytes, trimmed, more, out, dropped }
