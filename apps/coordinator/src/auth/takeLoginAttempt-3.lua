--[[
  TakeLoginAttempt: spends one login attempt from three rate limits at once — the account's,
  the client address's and the whole installation's — or from none when any has none left.
  Each limit is a GCRA (generic cell rate algorithm, a token bucket kept as one number): a key
  holds the limit's "theoretical arrival time", the moment it would be full again; absent or
  past means full. `burst` attempts may be made at once, then one every `interval` ms.

  Input:
    KEYS[1] the account's limit       string: theoretical arrival time (ms, Redis TIME)
    KEYS[2] the address's limit       string: same
    KEYS[3] the installation's limit  string: same
    ARGV[1] account burst (0 = no account limit)
    ARGV[2] account interval, ms per attempt regained
    ARGV[3] address burst (0 = no address limit)
    ARGV[4] address interval, ms per attempt regained
    ARGV[5] global burst (0 = no installation-wide limit)
    ARGV[6] global interval, ms per attempt regained
  Output:
    {TAKEN, 0}        the attempt is taken from all three
    {which, wait_ms}  refused, nothing spent: which is the sum of the refusing limits' bits
                      (ACCOUNT_LIMITED 1, ADDRESS_LIMITED 2, GLOBAL_LIMITED 4; BOTH_LIMITED is
                      account and address); wait_ms until every refusing limit allows one again
]]
-- The answers' numbers. TypeScript names the same numbers in login-throttle.ts
-- (LoginAttemptReply); login-throttle.test.ts checks that the two lists agree, name for name.
local TAKEN = 0 -- LoginAttemptReply.TAKEN
local ACCOUNT_LIMITED = 1 -- LoginAttemptReply.ACCOUNT_LIMITED
local ADDRESS_LIMITED = 2 -- LoginAttemptReply.ADDRESS_LIMITED
local BOTH_LIMITED = 3 -- LoginAttemptReply.BOTH_LIMITED
local GLOBAL_LIMITED = 4 -- LoginAttemptReply.GLOBAL_LIMITED

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

local limits = {
  { key = KEYS[1], burst = tonumber(ARGV[1]), interval = tonumber(ARGV[2]), bit = ACCOUNT_LIMITED },
  { key = KEYS[2], burst = tonumber(ARGV[3]), interval = tonumber(ARGV[4]), bit = ADDRESS_LIMITED },
  { key = KEYS[3], burst = tonumber(ARGV[5]), interval = tonumber(ARGV[6]), bit = GLOBAL_LIMITED },
}

local which, wait = TAKEN, 0
for _, l in ipairs(limits) do
  local tat, over = check(l.key, l.burst, l.interval)
  l.tat = tat
  if over > 0 then
    which = which + l.bit
    wait = math.max(wait, over)
  end
end
-- BOTH_LIMITED (account and address) is ACCOUNT_LIMITED + ADDRESS_LIMITED, as a sum is.
if which ~= TAKEN then return { which, wait } end

for _, l in ipairs(limits) do
  if l.tat then redis.call('SET', l.key, l.tat, 'PX', l.tat - now) end
end
return { TAKEN, 0 }
