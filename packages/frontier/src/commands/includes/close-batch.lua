--- @include "includes/keys"
-- The fenced start of completing or failing a lease: finds the lease's host, checks the lease is
-- still the host's current one, takes the leased batch off the host (`lq:`), lets the re-crawls
-- among the first `done` entries leave the pending re-crawl set, and returns the host, its hash
-- key and the entries not done (tagged, in order). Returns nil when the lease is not current.
local function close_batch(prefix, lease_id, done)
  local host = redis.call('HGET', lease_key(prefix, lease_id), 'host')
  if not host then return nil end
  local hkey = host_key(prefix, host)
  if redis.call('HGET', hkey, 'lease') ~= lease_id then return nil end
  local lqkey = leased_batch_key(prefix, host)
  -- None when done is 0: LRANGE 0 -1 would be the whole batch.
  if done > 0 then
    for _, tagged in ipairs(redis.call('LRANGE', lqkey, 0, done - 1)) do
      local tier, fp = string.match(tagged, '^(%w)|(%x+)|')
      if tier == 'r' then redis.call('SREM', recrawl_pending_key(prefix), fp) end
    end
  end
  local rest = redis.call('LRANGE', lqkey, done, -1)
  redis.call('DEL', lqkey)
  return host, hkey, rest
end
