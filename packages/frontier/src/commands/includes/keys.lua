-- The keys scripts build themselves (beyond the KEYS they declare), one function per kind of
-- key. Each mirrors the FrontierKeys method named beside it (packages/frontier/src/keys.ts, the
-- one key module); keys-lua.integration.test.ts runs every function here through Redis and
-- checks it against that method. `prefix` is a shard's key prefix (FrontierKeys.shard:
-- `<prefix>:{<shard>}:`, ARGV[1] of the shard's scripts); `ready_key` and `seen_key` are the
-- declared ready and seen keys. Every key built keeps their `{<shard>}` hash tag, so a script
-- stays in its shard's cluster slot.
-- No script may build a key any other way: what a key is named is decided here.

-- FrontierKeys.host: a host's hash (policy, politeness, lease, counters).
local function host_key(prefix, host) return prefix .. 'h:' .. host end
-- FrontierKeys.tierQueue: a host's queue of one tier, '0'…'9' or 'r' (includes/host-queue.lua).
local function queue_key(prefix, tier, host) return prefix .. 'q' .. tier .. ':' .. host end
-- FrontierKeys.leasedBatch: the batch of a host's open lease, entries tagged `tier|entry`.
local function leased_batch_key(prefix, host) return prefix .. 'lq:' .. host end
-- FrontierKeys.lease: a lease's record (host, agent, gap, the `d<i>` marks of leaseProgress).
local function lease_key(prefix, lease_id) return prefix .. 'l:' .. lease_id end
-- FrontierKeys.ipState: the shard's state of an IP (its lease, deadline, next allowed time).
local function ip_state_key(prefix, ip) return prefix .. 'ip:' .. ip end
-- FrontierKeys.recrawlPending: url_fps of re-crawls queued, leased or dead-lettered.
local function recrawl_pending_key(prefix) return prefix .. 'rq' end
-- FrontierKeys.suffixPolicies: domain-suffix policies copied into the shard.
local function suffix_policies_key(prefix) return prefix .. 'sp' end
-- FrontierKeys.overflow: URLs spilled out of the shard's heads (includes/spill.lua).
local function overflow_key(prefix) return prefix .. 'ov' end
-- FrontierKeys.refillHosts: hosts whose heads need URLs back from the spill.
local function refill_hosts_key(prefix) return prefix .. 'rf' end
-- FrontierKeys.refillDone: ids of refill batches applied.
local function refill_done_key(prefix) return prefix .. 'rfdone' end
-- FrontierKeys.spillEpoch: the epoch of the spill pump that works the shard (includes/spill.lua).
local function spill_epoch_key(prefix) return prefix .. 'spep' end
-- FrontierKeys.readyClass: the ready hosts of one class (includes/make-ready.lua).
local function ready_class_key(ready_key, class) return ready_key .. ':' .. class end
-- FrontierKeys.seenLayer: layer i ≥ 1 of the seen set's Bloom filter (layer 0 is seen_key).
local function seen_layer_key(seen_key, layer) return seen_key .. ':' .. layer end
-- FrontierKeys.seenMeta: the layers' geometry and counts (includes/seen-set.lua).
local function seen_meta_key(seen_key) return seen_key .. ':meta' end
-- FrontierKeys.seenCandidates: maybe-seen discoveries waiting for confirmation.
local function seen_candidates_key(seen_key) return seen_key .. ':maybe' end
-- FrontierKeys.seenConfirmed: url_fps confirmed new, taken by their next enqueue.
local function seen_confirmed_key(seen_key) return seen_key .. ':new' end
