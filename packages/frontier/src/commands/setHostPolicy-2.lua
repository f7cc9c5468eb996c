--[[
  Writes an operator's host policy into the frontier; agents see it from the host's next lease.
  Blocking removes the host from the ready set at once (its queue stays, restorable);
  unblocking makes it ready again.

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms)
    KEYS[2] stats    hash of shard counters
    ARGV[1] key prefix of the shard
    ARGV[2] host
    ARGV[3] gap between requests in ms, or '' for the default
    ARGV[4] blocked: '1' or '0'
    ARGV[5] daily page budget, or '' for the default (0 = unlimited)
    ARGV[6] allowlisted (no daily budget): '1' or '0'
    ARGV[7] connections at once, or '' for the default (1)
  Output:
    1
]]
local ready_key, stats_key = KEYS[1], KEYS[2]
local prefix, host, gap, blocked, budget, allow, max_conn = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/make-ready"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local hkey = host_key(prefix, host)
if redis.call('HSETNX', hkey, 'created', now_ms()) == 1 then
  redis.call('HINCRBY', stats_key, 'hosts', 1)
end
if gap == '' then redis.call('HDEL', hkey, 'gap_ms') else redis.call('HSET', hkey, 'gap_ms', gap) end
if budget == '' then redis.call('HDEL', hkey, 'daily_budget') else redis.call('HSET', hkey, 'daily_budget', budget) end
if max_conn == '' then redis.call('HDEL', hkey, 'max_conn') else redis.call('HSET', hkey, 'max_conn', max_conn) end
redis.call('HSET', hkey, 'blocked', blocked, 'allowlisted', allow)
-- Out of the ready set, and back at the host's next allowed time unless blocked (make_ready
-- checks): a later score (budget spent until tomorrow, a busy IP) may no longer apply under the
-- new policy, and make_ready's NX would keep it.
ready_remove(ready_key, host, host_class(hkey))
make_ready(ready_key, hkey, host)
return 1
