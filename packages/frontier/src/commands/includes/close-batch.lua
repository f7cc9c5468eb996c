--- @include "includes/keys"
-- The fenced start of completing or failing a lease: finds the lease's host, checks the lease is
-- still the host's current one, takes the leased batch off the host (`lq:`) and returns the
-- host, its hash key, the entries not done (tagged, in order) and how many entries after the
-- first `done` were done anyway: URLs finished out of order on the host's other connections,
-- recorded as `d<i>` marks (leaseProgress), are not fetched again. The re-crawls among the done
-- entries leave the pending re-crawl set. Returns nil when the lease is not current.
local function close_batch(prefix, lease_id, done)
  local lkey = lease_key(prefix, lease_id)
  local host = redis.call('HGET', lkey, 'host')
  if not host then return nil end
  local hkey = host_key(prefix, host)
  if redis.call('HGET', hkey, 'lease') ~= lease_id then return nil end
  local lqkey = leased_batch_key(prefix, host)
  local rest, marked = {}, 0
  for i, tagged in ipairs(redis.call('LRANGE', lqkey, 0, -1)) do
    local is_done = i <= done or redis.call('HEXISTS', lkey, 'd' .. (i - 1)) == 1
    if is_done then
      if i > done then marked = marked + 1 end
      local tier, fp = string.match(tagged, '^(%w)|(%x+)|')
      if tier == 'r' then redis.call('SREM', recrawl_pending_key(prefix), fp) end
    else
      rest[#rest + 1] = tagged
    end
  end
  redis.call('DEL', lqkey)
  return host, hkey, rest, marked
end
