--[[
  MarkSeen: adds url_fps to a shard's seen set without queueing them. A frontier rebuild restores
  the URLs already fetched this way (FrontierEnqueue.markSeen), so a link to one of them is not
  fetched again as new. The seen set's code is the enqueue script's (includes/seen-set.lua).

  Input:
    KEYS[1] seen     Bloom bit string, or a set in exact mode
    ARGV[1] seen mode: 'bloom' or 'set'
    ARGV[2] Bloom size in bits (m)
    ARGV[3] Bloom hash count (k)
    ARGV[4..] url_fps of the shard's hosts
  Output:
    how many were not in the set before
]]
local seen_key, mode, m, k = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
--- @include "includes/seen-set"
local added = 0
for i = 4, #ARGV do
  if seen_add(seen_key, ARGV[i], mode, m, k) then added = added + 1 end
end
return added
