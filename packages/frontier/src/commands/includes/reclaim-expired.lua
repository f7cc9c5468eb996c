-- Returns the URLs of expired leases to the head of their hosts' queues, in order, and makes
-- the hosts ready again no earlier than their next allowed time. Runs inside the scripts that
-- already run (lease, stats), so no reaper daemon is needed.
local function reclaim_expired(prefix, ready_key, leases_key, stats_key, now, limit)
  local expired = redis.call('ZRANGEBYSCORE', leases_key, '-inf', now, 'LIMIT', 0, limit)
  for _, lease_id in ipairs(expired) do
    local lkey = prefix .. 'l:' .. lease_id
    local host = redis.call('HGET', lkey, 'host')
    redis.call('ZREM', leases_key, lease_id)
    redis.call('DEL', lkey)
    if host then
      local hkey = prefix .. 'h:' .. host
      local qkey = prefix .. 'q:' .. host
      local lqkey = prefix .. 'lq:' .. host
      if redis.call('HGET', hkey, 'lease') == lease_id then
        local back = redis.call('LRANGE', lqkey, 0, -1)
        for i = #back, 1, -1 do redis.call('LPUSH', qkey, back[i]) end
        redis.call('DEL', lqkey)
        redis.call('HINCRBY', stats_key, 'queued', #back)
        redis.call('HINCRBY', stats_key, 'reclaimed', 1)
        redis.call('HDEL', hkey, 'lease', 'lease_agent', 'lease_deadline')
        local next_at = math.max(tonumber(redis.call('HGET', hkey, 'next_at') or '0'), now)
        redis.call('HSET', hkey, 'next_at', next_at)
        make_ready(ready_key, hkey, qkey, host)
      end
    end
  end
  return #expired
end
