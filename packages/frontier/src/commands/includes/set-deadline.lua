--- @include "includes/keys"
-- Moves an open lease's deadline (extend, renew): in the shard's lease set, the host hash and
-- the shard's IP state when the lease holds the IP.
local function set_deadline(prefix, leases_key, hkey, lease_id, deadline)
  redis.call('ZADD', leases_key, deadline, lease_id)
  redis.call('HSET', hkey, 'lease_deadline', deadline)
  local ip = redis.call('HGET', hkey, 'ip')
  if ip and redis.call('HGET', ip_state_key(prefix, ip), 'lease') == lease_id then
    redis.call('HSET', ip_state_key(prefix, ip), 'deadline', deadline)
  end
end
