--[[
  ObserveRecrawl: applies one shard's share of a batch of fetch rows to the re-crawl schedule, in
  row order (a row sees what the rows before it wrote). Called through FrontierRecrawl.observe
  (recrawl-schedule.ts). The change model is the coordinator's
  (apps/coordinator/src/recrawl/change-model.ts, `nextInterval`) and the meta built is the one
  apps/coordinator/src/recrawl/recrawl-store.ts describes; recrawl-store.integration.test.ts
  checks this script against a TypeScript rendering of both, row by row. Which rows are
  captures, drops or ignored is decided in TypeScript (RecrawlStore.observe).

  Input:
    KEYS[1] rc:due   zset url_fp -> due time (ms)
    KEYS[2] rc:meta  hash url_fp -> JSON meta {u,h,d,i,e?,m?,r?,t?,p?,s?}
    ARGV[1..3] interval bounds, ms: min, max, initial
    ARGV[4]    the operations, a JSON array, in row order:
      ["d", url_fp]                              a 404/410: the URL leaves the schedule
      ["c", url_fp, change, fetched_at (ms), url, host, depth, etag, last_modified, record_id,
       payload_digest, content_hash]             a capture ('' = not given); change is
                                                 'new', 'changed' or 'unchanged'
    (one JSON argument rather than 12 per row: half the coordinator's CPU to send them.)
    ARGV[5]    URLs the shard's schedule keeps at most (0 = no limit): past it, those due
               furthest ahead (the longest intervals: pages that change least) leave it
  Output:
    the number of captures scheduled
]]
local due_key, meta_key = KEYS[1], KEYS[2]
local min_ms, max_ms, initial_ms = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local MAX_SAFE = 9007199254740991

local function is_str(v)
  return type(v) == 'string'
end
-- zod's z.number().int(): a safe integer.
local function is_int(v)
  return type(v) == 'number' and v == math.floor(v) and v >= -MAX_SAFE and v <= MAX_SAFE
end

-- The stored meta, or nil when absent or not of the expected shape (as decodeMeta).
local function decode(raw)
  if not raw then
    return nil
  end
  local ok, m = pcall(cjson.decode, raw)
  if not ok or type(m) ~= 'table' then
    return nil
  end
  if not (is_str(m.u) and is_str(m.h) and is_int(m.d) and m.d >= 0 and is_int(m.i) and m.i > 0) then
    return nil
  end
  for _, k in ipairs({ 'e', 'm', 'r', 'p', 's' }) do
    if m[k] ~= nil and not is_str(m[k]) then
      return nil
    end
  end
  if m.t ~= nil and not is_int(m.t) then
    return nil
  end
  return m
end

-- nextInterval of change-model.ts; Math.round of a positive number is floor(x + 0.5).
local function next_interval(prev, change)
  local raw
  if prev == nil or change == 'new' then
    raw = initial_ms
  elseif change == 'changed' then
    raw = prev / 2
  else
    raw = prev * 1.5
  end
  return math.floor(math.min(max_ms, math.max(min_ms, raw)) + 0.5)
end

-- Sets meta[k] unless v is nil or '' (optional fields stay absent).
local function put(meta, k, v)
  if v ~= nil and v ~= '' then
    meta[k] = v
  end
end

-- `a` unless it is '' (the row gave nothing), else `b`.
local function either(a, b)
  if a ~= '' then
    return a
  end
  return b
end

local scheduled = 0
for _, op in ipairs(cjson.decode(ARGV[4])) do
  local fp = op[2]
  if op[1] == 'd' then
    redis.call('ZREM', due_key, fp)
    redis.call('HDEL', meta_key, fp)
  else
    local change, fetched_at = op[3], op[4]
    local old = decode(redis.call('HGET', meta_key, fp))
    local interval = next_interval(old and old.i, change)
    -- An unchanged page keeps referring to its last full capture; a new body replaces it.
    local full = nil
    if change == 'unchanged' and old and old.r and old.r ~= '' then
      full = old
    end
    local meta = { u = op[5], h = op[6], d = op[7], i = interval }
    put(meta, 'e', either(op[8], old and old.e))
    put(meta, 'm', either(op[9], old and old.m))
    if full then
      put(meta, 'r', full.r)
      put(meta, 't', full.t)
      put(meta, 'p', full.p)
    else
      put(meta, 'r', op[10])
      put(meta, 't', fetched_at)
      put(meta, 'p', op[11])
    end
    put(meta, 's', either(op[12], old and old.s))
    -- cjson writes '/' as '\/'; both read the same, the plain one is shorter. Outside strings
    -- there is no '/', and inside one a '\' before '/' can only be that escape.
    local json = string.gsub(cjson.encode(meta), '\\/', '/')
    redis.call('HSET', meta_key, fp, json)
    redis.call('ZADD', due_key, string.format('%.0f', fetched_at + interval), fp)
    scheduled = scheduled + 1
  end
end
local max_urls = tonumber(ARGV[5] or '0') or 0
if max_urls > 0 then
  local over = redis.call('ZCARD', due_key) - max_urls
  if over > 0 then
    local popped = redis.call('ZPOPMAX', due_key, over)
    for i = 1, #popped, 2 do
      redis.call('HDEL', meta_key, popped[i])
    end
  end
end
return scheduled
