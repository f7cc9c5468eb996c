--- @include "includes/keys"
--- @include "includes/daily-budget"
-- Returns a lost lease's URLs to the head of their hosts' queues, in order, less those the agent
-- recorded as done while it worked (`d<i>` fields of the lease record, see leaseProgress): those
-- count as processed. The host is ready again no earlier than one gap after now (an expired
-- lease's deadline is past; an operator releasing a dead agent's leases overrides theirs), so a
-- request the lost agent had in flight and the next lease's first request stay a gap apart.
local function reclaim_lease(prefix, ready_key, leases_key, stats_key, lease_id, now)
  local lkey = lease_key(prefix, lease_id)
  local host = redis.call('HGET', lkey, 'host')
  if not (host and redis.call('HGET', host_key(prefix, host), 'lease') == lease_id) then
    redis.call('ZREM', leases_key, lease_id)
    redis.call('DEL', lkey)
    return 0
  end
  local hkey = host_key(prefix, host)
  local lqkey = leased_batch_key(prefix, host)
  local rest, done = {}, 0
  for i, tagged in ipairs(redis.call('LRANGE', lqkey, 0, -1)) do
    if redis.call('HEXISTS', lkey, 'd' .. (i - 1)) == 1 then
      done = done + 1
      local tier, fp = string.match(tagged, '^(%w)|(%x+)|')
      if tier == 'r' then redis.call('SREM', recrawl_pending_key(prefix), fp) end
    else
      rest[#rest + 1] = tagged
    end
  end
  push_back_head(prefix, hkey, stats_key, host, rest)
  redis.call('DEL', lqkey)
  redis.call('HINCRBY', stats_key, 'reclaimed', 1)
  if done > 0 then
    redis.call('HINCRBY', stats_key, 'processed', done)
    redis.call('HINCRBY', stats_key, 'progress_kept', done)
    budget_use(hkey, math.floor(now / 86400000), done)
  end
  local h = redis.call('HMGET', hkey, 'next_at', 'pace_ms', 'gap_ms')
  local gap = math.max(tonumber(redis.call('HGET', lkey, 'gap') or '0'), tonumber(h[2] or '0'), tonumber(h[3] or '0'))
  local next_at = math.max(tonumber(h[1] or '0'), now + gap)
  end_lease(prefix, leases_key, hkey, lease_id, next_at, 0, now)
  make_ready(ready_key, hkey, host)
  return 1
end

-- Returns the URLs of expired leases to their hosts' queues (reclaim_lease). Runs inside the
-- scripts that already run (lease, stats) and as its own script, so no reaper daemon is needed.
local function reclaim_expired(prefix, ready_key, leases_key, stats_key, now, limit)
  local expired = redis.call('ZRANGEBYSCORE', leases_key, '-inf', now, 'LIMIT', 0, limit)
  for _, lease_id in ipairs(expired) do
    reclaim_lease(prefix, ready_key, leases_key, stats_key, lease_id, now)
  end
  return #expired
end
