--[[
  PushSimhashBucket: puts a page at the head of a SimHash band bucket (near-dup-index.ts) and
  keeps the bucket to its most recent pages. A page already in it moves to the head (no copy),
  so an origin that keeps finding near copies stays while unmatched pages age out.

  Input:
    KEYS[1] the bucket: a list of `simhash|url_fp|url`, most recent first
    ARGV[1] the member
    ARGV[2] pages a bucket keeps at most
  Output:
    the bucket's length
]]
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return redis.call('LLEN', KEYS[1])
