--- @include "includes/keys"
-- A host's queue is one list per tier: q0..q9 (URL priority, 0 highest) and qr (re-crawls),
-- keyed by queue_key (includes/keys.lua). The host hash field `n` counts its queued URLs.
-- Entries are `fp|attempts|depth|redirects|source|url`; while leased they carry their tier:
-- `tier|entry` (one character, so the scripts read it with `^(%w)|`).
local TIERS = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'r' }
local PRIORITY_TIERS = 10

-- Returns tagged entries (`tier|entry`) to the head of their tier lists, keeping their order.
local function push_back_head(prefix, hkey, stats_key, host, tagged)
  for i = #tagged, 1, -1 do
    local tier, entry = string.match(tagged[i], '^(%w)|(.*)$')
    redis.call('LPUSH', queue_key(prefix, tier, host), entry)
  end
  redis.call('HINCRBY', hkey, 'n', #tagged)
  redis.call('HINCRBY', stats_key, 'queued', #tagged)
end
