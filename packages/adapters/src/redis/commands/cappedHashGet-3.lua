--[[
  CappedHashGet: reads a field of a two-generation capped hash (capped-hash.ts). A hit in the
  older generation is copied into the current one, so a field in use survives the next
  rotation; when that copy fills the current generation, the generations rotate (the older one
  is deleted and becomes the new, empty, current one).

  Input:
    KEYS[1] flag: which generation is current ('b', else 'a')
    KEYS[2] generation a (hash)
    KEYS[3] generation b (hash)
    ARGV[1] the field
    ARGV[2] fields one generation holds at most
    ARGV[3] '1': copy an older hit forward; '0': read only
  Output:
    the value, or false when neither generation has the field
]]
local cur = redis.call('GET', KEYS[1]) == 'b' and 3 or 2
local old = 5 - cur
local value = redis.call('HGET', KEYS[cur], ARGV[1])
if value then
  return value
end
value = redis.call('HGET', KEYS[old], ARGV[1])
if value and ARGV[3] == '1' then
  redis.call('HSET', KEYS[cur], ARGV[1], value)
  if redis.call('HLEN', KEYS[cur]) >= tonumber(ARGV[2]) then
    redis.call('UNLINK', KEYS[old])
    redis.call('SET', KEYS[1], cur == 2 and 'b' or 'a')
  end
end
return value
