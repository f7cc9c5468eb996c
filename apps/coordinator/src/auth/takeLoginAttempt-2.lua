--[[
  TakeLoginAttempt: spends one login attempt from two rate limits at once — the account's and
  the client address's — or from neither when either has none left. Each limit is a GCRA
  (generic cell rate algorithm, a token bucket kept as one number): a key holds the limit's
  "theoretical arrival time", the moment it would be full again; absent or past means full.
  `burst` attempts may be made at once, then one every `interval` ms.

  Input:
    KEYS[1] the account's limit   string: theoretical arrival time (ms, Redis TIME)
    KEYS[2] the address's limit   string: same
    ARGV[1] account burst (0 = no account limit)
    ARGV[2] account interval, ms per attempt regained
    ARGV[3] address burst (0 = no address limit)
    ARGV[4] address interval, ms per attempt regained
  Output:
    {TAKEN, 0}        the attempt is taken from both
    {which, wait_ms}  refused, nothing spent: which = ACCOUNT_LIMITED, ADDRESS_LIMITED or
                      BOTH_LIMITED; wait_ms until every refusing limit allows an attempt again
]]
-- The answers' first numbers. TypeScript names the same numbers in login-throttle.ts
-- (LoginAttemptReply); login-throttle.test.ts checks that the two lists agree, name for name.
local TAKEN = 0 -- LoginAttemptReply.TAKEN
local ACCOUNT_LIMITED = 1 -- LoginAttemptReply.ACCOUNT_LIMITED
local ADDRESS_LIMITED = 2 -- LoginAttemptReply.ADDRESS_LIMITED
local BOTH_LIMITED = 3 -- LoginAttemptReply.BOTH_LIMITED

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- Returns the key's next arrival time if an attempt fits, else nil and the wait in ms.
local function check(key, burst, interval)
  if burst <= 0 then return nil, 0 end
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  local over = tat - now - (burst - 1) * interval
  if over > 0 then return nil, over end
  return tat + interval, 0
end

local account_burst, account_interval = tonumber(ARGV[1]), tonumber(ARGV[2])
local address_burst, address_interval = tonumber(ARGV[3]), tonumber(ARGV[4])
local account_tat, account_wait = check(KEYS[1], account_burst, account_interval)
local address_tat, address_wait = check(KEYS[2], address_burst, address_interval)

if account_wait > 0 or address_wait > 0 then
  local which = ADDRESS_LIMITED
  if account_wait > 0 then which = address_wait > 0 and BOTH_LIMITED or ACCOUNT_LIMITED end
  return { which, math.max(account_wait, address_wait) }
end

if account_tat then redis.call('SET', KEYS[1], account_tat, 'PX', account_tat - now) end
if address_tat then redis.call('SET', KEYS[2], address_tat, 'PX', address_tat - now) end
return { TAKEN, 0 }
