--[[
  ReturnLoginAttempt: gives back the attempt takeLoginAttempt-3.lua took, after a successful
  login or one refused before its password was checked (the hash queue was full), so only
  failed attempts count against the limits. Never fills a limit beyond full.

  Input:
    KEYS[1] the account's limit       string: theoretical arrival time (ms, Redis TIME)
    KEYS[2] the address's limit       string: same
    KEYS[3] the installation's limit  string: same
    ARGV[1] account interval, ms per attempt (0 = no account limit: leave it alone)
    ARGV[2] address interval, ms per attempt (0 = no address limit)
    ARGV[3] global interval, ms per attempt (0 = no installation-wide limit)
  Output:
    nil
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function give_back(key, interval)
  if interval <= 0 then return end
  local tat = tonumber(redis.call('GET', key))
  if not tat then return end
  tat = tat - interval
  if tat <= now then
    redis.call('DEL', key)
  else
    redis.call('SET', key, tat, 'PX', tat - now)
  end
end

give_back(KEYS[1], tonumber(ARGV[1]))
give_back(KEYS[2], tonumber(ARGV[2]))
give_back(KEYS[3], tonumber(ARGV[3]))
return nil
