--- @include "includes/keys"
-- Clears a host's lease (host hash, lease set, lease record, the lease of the IP it was granted
-- on), records the IP connected (`new_ip`, '' or nil to keep the known one) and sets the host's
-- next allowed time; the IP's next allowed time is at least now + ip_gap.
local function end_lease(prefix, leases_key, hkey, lease_id, next_at, ip_gap, now, new_ip)
  redis.call('ZREM', leases_key, lease_id)
  redis.call('DEL', lease_key(prefix, lease_id))
  redis.call('HDEL', hkey, 'lease', 'lease_agent', 'lease_deadline')
  redis.call('HSET', hkey, 'next_at', next_at)
  local old_ip = redis.call('HGET', hkey, 'ip')
  if old_ip then
    local oldkey = ip_state_key(prefix, old_ip)
    if redis.call('HGET', oldkey, 'lease') == lease_id then redis.call('HDEL', oldkey, 'lease', 'deadline') end
  end
  if new_ip and new_ip ~= '' then redis.call('HSET', hkey, 'ip', new_ip) end
  local ip = redis.call('HGET', hkey, 'ip')
  if ip then
    local ipkey = ip_state_key(prefix, ip)
    local ip_next = now + ip_gap
    if tonumber(redis.call('HGET', ipkey, 'next_at') or '0') < ip_next then
      redis.call('HSET', ipkey, 'next_at', ip_next)
    end
    redis.call('PEXPIRE', ipkey, 86400000)
  end
end
