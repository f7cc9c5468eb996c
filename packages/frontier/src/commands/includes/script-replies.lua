-- The numbers scripts answer with instead of a result. TypeScript names the same numbers in
-- packages/frontier/src/script-replies.ts (ScriptReply), where callers compare against them;
-- script-replies.test.ts checks that the two lists agree, name for name.
local STALE_LEASE = -1 -- ScriptReply.STALE_LEASE: the lease id is no longer current
local IP_LOCK_NOT_HELD = 0 -- ScriptReply.IP_LOCK_NOT_HELD: the lease does not hold the IP lock
local IP_LOCK_HELD = 1 -- ScriptReply.IP_LOCK_HELD: the lease holds the IP lock
