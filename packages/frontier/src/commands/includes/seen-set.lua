-- The shard's seen set: a Bloom filter (a bit string; k positions by double hashing of the
-- 64-bit url_fp, Kirsch–Mitzenmacher) or, in exact mode, a Redis set. A Bloom false positive
-- skips a new URL; it never lets one in twice.
local function bloom_positions(fp, m, k)
  local h1 = tonumber(string.sub(fp, 1, 8), 16)
  local h2 = tonumber(string.sub(fp, 9, 16), 16)
  if h2 % 2 == 0 then h2 = h2 + 1 end
  local pos = {}
  for i = 0, k - 1 do pos[i + 1] = (h1 + i * h2) % m end
  return pos
end

-- Adds a url_fp; returns true when it was not there before.
local function seen_add(key, fp, mode, m, k)
  if mode == 'set' then return redis.call('SADD', key, fp) == 1 end
  if k == 7 then
    -- The default k, spelled out: building the argument table and unpacking it costs about
    -- twice the BITFIELD call itself, and this runs once per discovered link.
    local h1 = tonumber(string.sub(fp, 1, 8), 16)
    local h2 = tonumber(string.sub(fp, 9, 16), 16)
    if h2 % 2 == 0 then h2 = h2 + 1 end
    local o = redis.call('BITFIELD', key,
      'SET', 'u1', h1 % m, 1, 'SET', 'u1', (h1 + h2) % m, 1, 'SET', 'u1', (h1 + 2 * h2) % m, 1,
      'SET', 'u1', (h1 + 3 * h2) % m, 1, 'SET', 'u1', (h1 + 4 * h2) % m, 1,
      'SET', 'u1', (h1 + 5 * h2) % m, 1, 'SET', 'u1', (h1 + 6 * h2) % m, 1)
    return o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7] < 7
  end
  local args = {}
  for _, p in ipairs(bloom_positions(fp, m, k)) do
    args[#args + 1] = 'SET'; args[#args + 1] = 'u1'; args[#args + 1] = p; args[#args + 1] = 1
  end
  local old = redis.call('BITFIELD', key, unpack(args))
  for _, b in ipairs(old) do
    if b == 0 then return true end
  end
  return false
end

-- True when a url_fp is (probably, for Bloom) in the set.
local function seen_has(key, fp, mode, m, k)
  if mode == 'set' then return redis.call('SISMEMBER', key, fp) == 1 end
  local args = {}
  for _, p in ipairs(bloom_positions(fp, m, k)) do
    args[#args + 1] = 'GET'; args[#args + 1] = 'u1'; args[#args + 1] = p
  end
  for _, b in ipairs(redis.call('BITFIELD_RO', key, unpack(args))) do
    if b == 0 then return false end
  end
  return true
end
