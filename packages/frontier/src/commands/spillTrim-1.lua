--[[
  Trims entries the spiller copied into Postgres off the front of a shard's overflow list, once:
  only when the list still starts with the entry the copy started at (a spiller that crashed
  after trimming and copies again trims nothing twice).

  Input:
    KEYS[1] the shard's overflow list (`<prefix>ov`, includes/spill.lua)
    ARGV[1] the first entry copied
    ARGV[2] how many entries were copied
  Output:
    entries trimmed (0 when already trimmed)
]]
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[2])
redis.call('LTRIM', KEYS[1], n, -1)
return n
