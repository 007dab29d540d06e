-- Returns a permit (mode 'release'); gives up a wait (mode 'cancel'): leaves the queue and returns
-- a permit granted to the owner meanwhile; or passes on a pushed permit nobody took (mode 'pass'),
-- as fair-release.lua does. Then grants the freed permits to as many of the oldest live waiters, in
-- queue order, as release.lua does for the exclusive lock (each for the waiter timeout or its own
-- lease if shorter, its client alone told its token); a waiter whose client no longer listens is
-- dropped.
--
-- KEYS[1] holders, KEYS[2] meta, KEYS[3] queue, KEYS[4] alive, KEYS[5] leases: as in sem-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release', 'cancel' or 'pass'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the semaphore name, sent to the granted clients
local publish = ARGV[5]                   -- 'SPUBLISH' where the cluster shards pub/sub, else 'PUBLISH'
local waiterTimeout = tonumber(ARGV[6])   -- how long a grant pushed to a waiter lasts untaken
local token = ARGV[7]                     -- for 'pass': the token of the pushed grant
-- Returns 1 if the owner held a permit (release, pass), or held or waited for one (cancel); else
-- 0; an error if a key holds what dlock did not write there (see the prelude).

local holders, meta, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local bad = rest().foreign({'zset', 'meta', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local now = math.floor(micros() / 1000)

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
  redis.call('HDEL', leases, waiter)
end

local function grantFree()
  if redis.call('EXISTS', queue) == 0 then
    return
  end
  redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
  local free = tonumber(redis.call('HGET', meta, 'permits') or 0) - redis.call('ZCARD', holders)
  if free <= 0 then
    return
  end
  local g = {alive = alive, leases = leases, counter = meta, field = 'token', channels = channels,
    publish = publish, name = name, kind = 'p', waiterTimeout = waiterTimeout, now = now}
  -- The oldest waiters, one per free permit, with room to skip a few that are gone.
  rest().walkQueue(queue, math.min(free, 64) + 8, function(waiter)
    if free == 0 then
      return 'stop'
    end
    local pushed, ms = rest().offer(g, waiter)
    if not pushed then
      return 'drop'
    end
    drop(waiter)
    redis.call('ZADD', holders, now + ms, waiter)
    if redis.call('PTTL', holders) < ms then
      redis.call('PEXPIRE', holders, ms)
    end
    rest().markPushed(leases, waiter, pushed, waiterTimeout)
    free = free - 1
    return 'granted'
  end, drop)
end

if mode == 'release' or mode == 'pass' then
  local lapses = redis.call('ZSCORE', holders, owner)
  if not lapses or mode == 'pass' and not rest().pushedUntaken(leases, owner, token) then
    return 0
  end
  redis.call('ZREM', holders, owner)
  redis.call('HDEL', leases, owner)
  if tonumber(lapses) <= now then
    return 0
  end
  grantFree()
  return 1
end

local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
redis.call('HDEL', leases, owner)
local freed = redis.call('ZREM', holders, owner) == 1
if freed or left == 1 then
  grantFree()
  return 1
end
return 0
