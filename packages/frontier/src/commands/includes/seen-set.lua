--- @include "includes/keys"
-- The shard's seen set: a scalable Bloom filter (Almeida et al. 2007) or, in exact mode, a Redis
-- set. A Bloom false positive skips a new URL; it never lets one in twice.
--
-- Layers: layer 0 is the seen key itself (the single filter of earlier releases), layer i ≥ 1
-- the string `<seen>:<i>`, every one a bit string of m_i bits probed at k positions by double
-- hashing of the 64-bit url_fp (Kirsch–Mitzenmacher). Layer i takes c_i URLs at most, sized so
-- that its false-positive rate at c_i is at most P·(1 − r)·r^i (P the target, r = SEEN_RATIO):
-- over every layer, however many, the rate stays under P. When the newest layer holds its c_i,
-- the next layer opens with SEEN_GROWTH times the capacity. A lookup checks every layer, newest
-- first; an add checks the older ones and sets bits in the newest only.
--
-- `<seen>:meta` (hash) describes the layers: `layers` (how many), per layer i `m<i>`, `k<i>`,
-- `c<i>` (bits, hashes, capacity) and `n<i>` (URLs added). Missing, the shard has layer 0 only,
-- from the spec; a layer-0 filter written before layers existed counts its URLs from its bits on
-- the first add (-m/k · ln(1 − ones/m)). `noted` / `dropped` count maybe-seen candidates.
--
-- Confirmation: a discovered URL the filter says maybe-seen is noted in `<seen>:maybe` (list of
-- `tier|host|entry`, at most `confirm` entries; beyond, counted as dropped). The coordinator
-- checks them against the URL table (apps/coordinator/src/seen-confirm) and puts the url_fps it
-- found new in `<seen>:new` (set): an add of one of those counts as new, once.
local SEEN_RATIO = 0.5
local SEEN_GROWTH = 2
-- BITFIELD offsets stop at 2^32 − 1: a layer needing more bits takes fewer URLs instead.
local SEEN_MAX_BITS = 4294967295

-- Bits of a layer for n URLs at false-positive rate p with k hashes, and the inverse.
local function bloom_bits(n, k, p)
  return math.ceil(-k * n / math.log(1 - p ^ (1 / k)))
end
local function bloom_capacity(m, k, p)
  return math.max(1, math.floor(-(m / k) * math.log(1 - p ^ (1 / k))))
end

-- Opens a shard's seen set for one script call. `spec` is `m:k:c:p` (layer 0's bits, hashes and
-- capacity, the target rate P), `confirm` the cap of the candidate list (0: note nothing).
local function seen_open(key, mode, spec, confirm)
  local s = { key = key, mode = mode, confirm = tonumber(confirm) or 0 }
  if mode == 'set' then return s end
  local m, k, c, p = string.match(spec, '^(%d+):(%d+):(%d+):(.+)$')
  s.m0, s.k0, s.c0, s.p = tonumber(m), tonumber(k), tonumber(c), tonumber(p)
  return s
end

-- Loads the layers (once per call): keys, geometry, and the newest layer's count.
local function seen_load(s)
  if s.keys then return end
  s.meta = seen_meta_key(s.key)
  local h, raw = {}, redis.call('HGETALL', s.meta)
  for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
  s.keys, s.ms, s.ks, s.cs = { s.key }, { s.m0 }, { s.k0 }, { s.c0 }
  s.layers = tonumber(h.layers)
  if not s.layers then
    s.layers = 1
    return
  end
  s.cs[1] = tonumber(h.c0) or s.c0
  for i = 1, s.layers - 1 do
    s.keys[i + 1] = seen_layer_key(s.key, i)
    s.ms[i + 1], s.ks[i + 1], s.cs[i + 1] = tonumber(h['m' .. i]), tonumber(h['k' .. i]), tonumber(h['c' .. i])
  end
  s.n = tonumber(h['n' .. (s.layers - 1)]) or 0
end

-- Opens layer `s.layers` (the next): capacity SEEN_GROWTH × the last's, rate bound × SEEN_RATIO.
local function seen_grow(s)
  local i = s.layers
  local k = s.k0
  local p = s.p * (1 - SEEN_RATIO) * SEEN_RATIO ^ i
  local c = s.cs[1] * SEEN_GROWTH ^ i
  local m = bloom_bits(c, k, p)
  if m > SEEN_MAX_BITS then
    m = SEEN_MAX_BITS
    c = bloom_capacity(m, k, p)
  end
  redis.call('HSET', s.meta, 'n' .. (i - 1), s.n, 'layers', i + 1,
    'm' .. i, m, 'k' .. i, k, 'c' .. i, c, 'n' .. i, 0)
  s.layers = i + 1
  s.keys[i + 1], s.ms[i + 1], s.ks[i + 1], s.cs[i + 1] = seen_layer_key(s.key, i), m, k, c
  s.n = 0
end

-- The first add on a shard without layer metadata: count layer 0's URLs (a filter from before
-- layers existed: estimated from its bits), record it, and open layers while it is full.
local function seen_init(s)
  local n = 0
  if redis.call('EXISTS', s.key) == 1 then
    local ones = redis.call('BITCOUNT', s.key)
    n = ones >= s.m0 and s.c0 or math.floor(-(s.m0 / s.k0) * math.log(1 - ones / s.m0) + 0.5)
  end
  redis.call('HSET', s.meta, 'layers', 1, 'm0', s.m0, 'k0', s.k0, 'c0', s.c0, 'n0', n)
  s.n = n
  while s.n >= s.cs[s.layers] do seen_grow(s) end
end

-- Sets a layer's k bits of (h1, h2); true when all were set already (nothing changed).
local function bits_set(key, h1, h2, m, k)
  if k == 7 then
    -- The default k, spelled out: building the argument table and unpacking it costs about
    -- twice the BITFIELD call itself, and this runs once per discovered link.
    local o = redis.call('BITFIELD', key,
      'SET', 'u1', h1 % m, 1, 'SET', 'u1', (h1 + h2) % m, 1, 'SET', 'u1', (h1 + 2 * h2) % m, 1,
      'SET', 'u1', (h1 + 3 * h2) % m, 1, 'SET', 'u1', (h1 + 4 * h2) % m, 1,
      'SET', 'u1', (h1 + 5 * h2) % m, 1, 'SET', 'u1', (h1 + 6 * h2) % m, 1)
    return o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7] == 7
  end
  local args = {}
  for i = 0, k - 1 do
    args[#args + 1] = 'SET'; args[#args + 1] = 'u1'; args[#args + 1] = (h1 + i * h2) % m; args[#args + 1] = 1
  end
  for _, b in ipairs(redis.call('BITFIELD', key, unpack(args))) do
    if b == 0 then return false end
  end
  return true
end

-- True when a layer's k bits of (h1, h2) are all set.
local function bits_all(key, h1, h2, m, k)
  if k == 7 then
    local o = redis.call('BITFIELD_RO', key,
      'GET', 'u1', h1 % m, 'GET', 'u1', (h1 + h2) % m, 'GET', 'u1', (h1 + 2 * h2) % m,
      'GET', 'u1', (h1 + 3 * h2) % m, 'GET', 'u1', (h1 + 4 * h2) % m,
      'GET', 'u1', (h1 + 5 * h2) % m, 'GET', 'u1', (h1 + 6 * h2) % m)
    return o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7] == 7
  end
  local args = {}
  for i = 0, k - 1 do
    args[#args + 1] = 'GET'; args[#args + 1] = 'u1'; args[#args + 1] = (h1 + i * h2) % m
  end
  for _, b in ipairs(redis.call('BITFIELD_RO', key, unpack(args))) do
    if b == 0 then return false end
  end
  return true
end

-- The url_fp's two 32-bit hashes (h2 odd, so the k positions differ).
local function fp_hashes(fp)
  local h1 = tonumber(string.sub(fp, 1, 8), 16)
  local h2 = tonumber(string.sub(fp, 9, 16), 16)
  if h2 % 2 == 0 then h2 = h2 + 1 end
  return h1, h2
end

-- A maybe-seen url_fp the coordinator confirmed new (`<seen>:new`): taken out, counts as new.
local function seen_confirmed_new(s, fp)
  if s.pending == nil then s.pending = redis.call('SCARD', seen_confirmed_key(s.key)) end
  if s.pending == 0 then return false end
  if redis.call('SREM', seen_confirmed_key(s.key), fp) == 1 then
    s.pending = s.pending - 1
    return true
  end
  return false
end

-- Adds a url_fp; true when it was not there before. With `host`, `tier` and `entry` (a
-- discovered URL), a maybe-seen answer notes it as a candidate for confirmation.
local function seen_add(s, fp, host, tier, entry)
  if s.mode == 'set' then return redis.call('SADD', s.key, fp) == 1 end
  if not s.n then
    seen_load(s)
    if not s.n then seen_init(s) end
  end
  local h1, h2 = fp_hashes(fp)
  local top = s.layers
  local maybe = false
  for i = top - 1, 1, -1 do
    if bits_all(s.keys[i], h1, h2, s.ms[i], s.ks[i]) then maybe = true; break end
  end
  if not maybe then maybe = bits_set(s.keys[top], h1, h2, s.ms[top], s.ks[top]) end
  if not maybe then
    s.n = s.n + 1
    s.dirty = true
    if s.confirm > 0 then
      s.added = s.added or {}
      s.added[fp] = true
    end
    if s.n >= s.cs[top] then seen_grow(s) end
    return true
  end
  -- A url_fp met before in this call (added, confirmed or noted) is a repeat: not noted again.
  if not entry or s.confirm <= 0 or (s.added and s.added[fp]) then return false end
  s.added = s.added or {}
  s.added[fp] = true
  if seen_confirmed_new(s, fp) then return true end
  if not s.notes then
    s.notes, s.dropped = {}, 0
    s.room = math.max(0, s.confirm - redis.call('LLEN', seen_candidates_key(s.key)))
  end
  if #s.notes < s.room then
    s.notes[#s.notes + 1] = tier .. '|' .. host .. '|' .. entry
  else
    s.dropped = s.dropped + 1
  end
  return false
end

-- True when a url_fp is (probably, for Bloom) in the set.
local function seen_has(s, fp)
  if s.mode == 'set' then return redis.call('SISMEMBER', s.key, fp) == 1 end
  seen_load(s)
  local h1, h2 = fp_hashes(fp)
  for i = s.layers, 1, -1 do
    if bits_all(s.keys[i], h1, h2, s.ms[i], s.ks[i]) then return true end
  end
  return false
end

-- Ends a script call: records the newest layer's count and the noted candidates (up to the cap).
local function seen_close(s)
  if s.dirty then redis.call('HSET', s.meta, 'n' .. (s.layers - 1), s.n) end
  if not s.notes then return end
  local n = #s.notes
  for i = 1, n, 1000 do
    redis.call('RPUSH', seen_candidates_key(s.key), unpack(s.notes, i, math.min(i + 999, n)))
  end
  if n > 0 then redis.call('HINCRBY', seen_meta_key(s.key), 'noted', n) end
  if s.dropped > 0 then redis.call('HINCRBY', seen_meta_key(s.key), 'dropped', s.dropped) end
end

-- Bytes of every layer of a shard's Bloom filter.
local function seen_layer_bytes(key)
  local n = redis.call('STRLEN', key)
  local layers = tonumber(redis.call('HGET', seen_meta_key(key), 'layers') or '1')
  for i = 1, layers - 1 do n = n + redis.call('STRLEN', seen_layer_key(key, i)) end
  return n
end
