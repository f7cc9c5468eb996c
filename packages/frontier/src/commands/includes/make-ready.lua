-- Puts a host in the ready set at its next allowed time when it has work and may be leased:
-- URLs queued, no open lease, not blocked, not parked. NX keeps an earlier score.
local function make_ready(ready_key, hkey, host)
  local h = redis.call('HMGET', hkey, 'lease', 'blocked', 'parked', 'next_at', 'n')
  if h[1] or h[2] == '1' or h[3] == '1' then return end
  if tonumber(h[5] or '0') <= 0 then return end
  redis.call('ZADD', ready_key, 'NX', tonumber(h[4] or '0'), host)
end
