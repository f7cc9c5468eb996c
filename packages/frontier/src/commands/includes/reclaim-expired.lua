-- Returns the URLs of expired leases to the head of their hosts' queues, in order, and makes
-- the hosts ready again no earlier than their next allowed time. Runs inside the scripts that
-- already run (lease, stats) and as its own script, so no reaper daemon is needed.
local function reclaim_expired(prefix, ready_key, leases_key, stats_key, now, limit)
  local expired = redis.call('ZRANGEBYSCORE', leases_key, '-inf', now, 'LIMIT', 0, limit)
  for _, lease_id in ipairs(expired) do
    local host = redis.call('HGET', prefix .. 'l:' .. lease_id, 'host')
    if host and redis.call('HGET', prefix .. 'h:' .. host, 'lease') == lease_id then
      local hkey = prefix .. 'h:' .. host
      local lqkey = prefix .. 'lq:' .. host
      push_back_head(prefix, hkey, stats_key, host, redis.call('LRANGE', lqkey, 0, -1))
      redis.call('DEL', lqkey)
      redis.call('HINCRBY', stats_key, 'reclaimed', 1)
      local next_at = math.max(tonumber(redis.call('HGET', hkey, 'next_at') or '0'), now)
      end_lease(prefix, leases_key, hkey, lease_id, next_at, 0, now)
      make_ready(ready_key, hkey, host)
    else
      redis.call('ZREM', leases_key, lease_id)
      redis.call('DEL', prefix .. 'l:' .. lease_id)
    end
  end
  return #expired
end
