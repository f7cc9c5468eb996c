--[[
  DropFeedGroup: unregisters a consumer group from one partition of the `pages.parsed` feed
  (XGROUP DESTROY): the entries it had not acknowledged are added to its drop count, and the
  feed's trim no longer keeps them for it (feed-retention.ts).

  Input:
    KEYS[1] the partition's stream
    KEYS[2] its drop counts (hash: group → entries trimmed before the group had them)
    ARGV[1] the group
  Output:
    the entries the group had not acknowledged, or -1 when it is not registered here
]]
--- @include "includes/feed-position"

local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return -1 end
local length = redis.call('XLEN', key)
local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1]
for _, g in ipairs(readGroups(key)) do
  if g.name == ARGV[1] then
    local _, unread = groupNeeds(key, g, length, first and first[1] or nil)
    if unread > 0 then redis.call('HINCRBY', KEYS[2], g.name, unread) end
    redis.call('XGROUP', 'DESTROY', key, g.name)
    return unread
  end
end
return -1
