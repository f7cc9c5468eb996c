-- A host's queue is one list per tier: q0..q3 (priority, 0 highest) and qr (re-crawls), keyed
-- `<shard prefix>q<tier>:<host>`. The host hash field `n` counts its queued URLs. Entries are
-- `fp|attempts|depth|redirects|source|url`; while leased they carry their tier: `tier|entry`.
local TIERS = { '0', '1', '2', '3', 'r' }

local function queue_key(prefix, tier, host)
  return prefix .. 'q' .. tier .. ':' .. host
end

-- Returns tagged entries (`tier|entry`) to the head of their tier lists, keeping their order.
local function push_back_head(prefix, hkey, stats_key, host, tagged)
  for i = #tagged, 1, -1 do
    local tier, entry = string.match(tagged[i], '^(%w)|(.*)$')
    redis.call('LPUSH', queue_key(prefix, tier, host), entry)
  end
  redis.call('HINCRBY', hkey, 'n', #tagged)
  redis.call('HINCRBY', stats_key, 'queued', #tagged)
end
