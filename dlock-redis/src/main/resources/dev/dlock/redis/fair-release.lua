-- Releases a fair lock (mode 'release'); gives up a wait (mode 'cancel'): leaves the queue and
-- frees a grant made to the owner meanwhile; or passes on a pushed grant nobody took (mode 'pass'):
-- frees it only while it is still marked pushed with that token (the prelude's markPushed), as the
-- owner's own retry may have taken it since. A lock left free with owners queued is granted to the
-- oldest live one whose client still listens, as release.lua does for the exclusive lock: for the
-- waiter timeout or its own lease if shorter, and its client alone is told the token; a waiter
-- whose client no longer listens is dropped and the next one is tried.
--
-- KEYS[1] owner, KEYS[2] token, KEYS[3] queue, KEYS[4] alive, KEYS[5] leases: as in fair-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release', 'cancel' or 'pass'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the lock name, sent to the granted client
local publish = ARGV[5]                   -- 'SPUBLISH' where the cluster shards pub/sub, else 'PUBLISH'
local waiterTimeout = tonumber(ARGV[6])   -- how long a grant pushed to a waiter lasts untaken
local token = ARGV[7]                     -- for 'pass': the token of the pushed grant
-- Returns 1 if the owner held the lock (release, pass), or held or waited for it (cancel); else 0;
-- an error if a key holds what dlock did not write there (see the prelude).

local lock, counter, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local bad = rest().foreign({'owner', 'counter', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
  redis.call('HDEL', leases, waiter)
end

local function grantHead()
  if redis.call('EXISTS', queue) == 0 or redis.call('EXISTS', lock) == 1 then
    return
  end
  local g = {alive = alive, leases = leases, counter = counter, channels = channels, publish = publish,
    name = name, kind = 'f', waiterTimeout = waiterTimeout, now = math.floor(micros() / 1000)}
  rest().walkQueue(queue, 8, function(head)
    local pushed, ms = rest().offer(g, head)
    if not pushed then
      return 'drop'
    end
    drop(head)
    redis.call('SET', lock, head, 'PX', ms)
    rest().markPushed(leases, head, pushed, waiterTimeout)
    return 'stop'
  end, drop)
end

if mode == 'release' or mode == 'pass' then
  if redis.call('GET', lock) ~= owner or mode == 'pass' and not rest().pushedUntaken(leases, owner, token) then
    return 0
  end
  redis.call('DEL', lock)
  redis.call('HDEL', leases, owner)
  grantHead()
  return 1
end

local wasHead = redis.call('ZRANGE', queue, 0, 0)[1] == owner
local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
redis.call('HDEL', leases, owner)
local freed = redis.call('GET', lock) == owner
if freed then
  redis.call('DEL', lock)
end
if freed or wasHead then
  grantHead()
end
return (freed or left == 1) and 1 or 0
