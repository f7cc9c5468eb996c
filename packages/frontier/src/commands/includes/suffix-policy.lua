--- @include "includes/keys"
-- Domain-suffix policies: an operator's policy for `*.example.com` covers example.com and every
-- host under it. The coordinator copies each pattern into every shard's `sp` hash
-- (suffix -> 'gap_ms|blocked|daily_budget|allowlisted|max_conn', '' where the pattern leaves a field to
-- the default) and rewrites the hosts already known; a host first seen later gets it here.
-- Field by field, the longest suffix that sets a field wins (as the coordinator merges them).
local SUFFIX_FIELDS = { 'gap_ms', 'blocked', 'daily_budget', 'allowlisted', 'max_conn' }

local function apply_suffix_policy(prefix, hkey, host)
  local sp_key = suffix_policies_key(prefix)
  if redis.call('EXISTS', sp_key) == 0 then return end
  local set = {}
  local name = host
  while name do
    local v = redis.call('HGET', sp_key, name)
    if v then
      local i = 1
      for value in string.gmatch(v .. '|', '([^|]*)|') do
        local field = SUFFIX_FIELDS[i]
        if field and value ~= '' and not set[field] then
          set[field] = true
          redis.call('HSET', hkey, field, value)
        end
        i = i + 1
      end
    end
    local dot = string.find(name, '.', 1, true)
    name = dot and string.sub(name, dot + 1) or nil
  end
end
