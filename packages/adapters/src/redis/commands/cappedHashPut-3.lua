--[[
  CappedHashPut: writes fields into the current generation of a two-generation capped hash
  (capped-hash.ts); once it holds the most fields a generation may, the generations rotate: the
  older one is deleted and becomes the new, empty, current one. At most 2 × ARGV[1] fields live
  in the two, and at least the ARGV[1] most recently written or read.

  Input:
    KEYS[1] flag: which generation is current ('b', else 'a')
    KEYS[2] generation a (hash)
    KEYS[3] generation b (hash)
    ARGV[1] fields one generation holds at most
    ARGV[2] 'nx': keep a value already there (in either generation; one found in the older is
            copied forward instead); 'set': overwrite
    ARGV[3], ARGV[4], ... field, value pairs
  Output:
    the number of fields written with the given value
]]
local max = tonumber(ARGV[1])
local nx = ARGV[2] == 'nx'
local written = 0
for i = 3, #ARGV, 2 do
  local cur = redis.call('GET', KEYS[1]) == 'b' and 3 or 2
  local old = 5 - cur
  local field, value = ARGV[i], ARGV[i + 1]
  if nx then
    if redis.call('HEXISTS', KEYS[cur], field) == 0 then
      local older = redis.call('HGET', KEYS[old], field)
      if older then
        redis.call('HSET', KEYS[cur], field, older)
      else
        redis.call('HSET', KEYS[cur], field, value)
        written = written + 1
      end
    end
  else
    redis.call('HSET', KEYS[cur], field, value)
    written = written + 1
  end
  if redis.call('HLEN', KEYS[cur]) >= max then
    redis.call('UNLINK', KEYS[old])
    redis.call('SET', KEYS[1], cur == 2 and 'b' or 'a')
  end
end
return written
