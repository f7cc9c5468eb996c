-- A host's daily page budget (UTC day). The host's own `daily_budget` (from its policy) wins
-- over the default; 0 means unlimited, as does `allowlisted`.
local function budget_left(hkey, today, default_budget)
  local h = redis.call('HMGET', hkey, 'budget_day', 'budget_used', 'daily_budget', 'allowlisted')
  if h[4] == '1' then return math.huge end
  local limit = tonumber(h[3] or default_budget)
  if limit <= 0 then return math.huge end
  if tonumber(h[1] or '-1') ~= today then return limit end
  return limit - tonumber(h[2] or '0')
end

local function budget_use(hkey, today, count)
  if count <= 0 then return end
  if tonumber(redis.call('HGET', hkey, 'budget_day') or '-1') ~= today then
    redis.call('HSET', hkey, 'budget_day', today, 'budget_used', count)
  else
    redis.call('HINCRBY', hkey, 'budget_used', count)
  end
end
