--[[
  Trims entries the spiller copied into Postgres off the front of a shard's overflow list, once:
  only when the list still starts with the entry the copy started at (a spiller that crashed
  after trimming and copies again trims nothing twice), and only for the pump that holds the
  shard (includes/spill.lua: spill_fenced).

  Input:
    KEYS[1] the shard's overflow list (`<prefix>ov`, includes/spill.lua)
    KEYS[2] the shard's spill epoch (`<prefix>spep`)
    ARGV[1] the first entry copied
    ARGV[2] how many entries were copied
    ARGV[3] the pump's epoch
  Output:
    entries trimmed (0 when already trimmed), or -3 when the shard is another pump's
]]
if tonumber(redis.call('GET', KEYS[2]) or '-1') ~= tonumber(ARGV[3]) then return -3 end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[2])
redis.call('LTRIM', KEYS[1], n, -1)
return n
