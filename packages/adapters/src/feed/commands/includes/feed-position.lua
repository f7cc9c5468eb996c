--[[
  Helpers shared by the feed's scripts: stream ids as `<ms>-<seq>` strings, compared without
  turning the milliseconds into a float string, and each consumer group's position.
]]
local function idParts(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end

-- True when stream id a comes before b.
local function idBefore(a, b)
  local am, as = idParts(a)
  local bm, bs = idParts(b)
  return am < bm or (am == bm and as < bs)
end

-- The smallest id after `id` (the milliseconds kept as written).
local function idAfter(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return ms .. '-' .. string.format('%d', tonumber(seq) + 1)
end

-- XINFO GROUPS as a list of { name, pending, last, lag } (lag false when Redis cannot tell).
local function readGroups(key)
  local out = {}
  for _, raw in ipairs(redis.call('XINFO', 'GROUPS', key)) do
    local g = {}
    for i = 1, #raw, 2 do g[raw[i]] = raw[i + 1] end
    out[#out + 1] = { name = g['name'], pending = tonumber(g['pending']) or 0,
      last = g['last-delivered-id'] or '0-0', lag = g['lag'] }
  end
  return out
end

--[[
  What a group still needs of the stream, given its length and first entry (nil when empty):
  `needs` is the first id it needs — its oldest pending entry that still has data (delivered,
  not acknowledged), else the one after its last-delivered-id — and `unread` how many entries
  from there it has not acknowledged: its pending ones plus those after last-delivered-id (all
  of them when the group is behind the first entry; all, too, when Redis cannot tell its lag,
  after an XDEL past its position). Acknowledged entries between its oldest pending one and
  last-delivered-id are not counted: the ingest has at most two batches in flight.
]]
local function groupNeeds(key, g, length, first)
  local needs = nil
  if g.pending > 0 and first then
    local p = redis.call('XPENDING', key, g.name, first, '+', 1)
    if p[1] then needs = p[1][1] end
  end
  if not needs then needs = idAfter(g.last) end
  local after
  if not first then
    after = 0
  elseif idBefore(g.last, first) or not g.lag then
    after = length
  else
    after = math.min(length, tonumber(g.lag))
  end
  return needs, math.min(length, g.pending + after)
end
