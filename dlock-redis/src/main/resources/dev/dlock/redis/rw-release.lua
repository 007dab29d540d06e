-- Releases one side of a read-write lock (mode 'release'); gives up a wait (mode 'cancel'): leaves
-- the queue and frees a grant made to the owner meanwhile; or passes on a pushed grant nobody took
-- (mode 'pass'), as fair-release.lua does. Then grants who may now go, as release.lua does for the
-- exclusive lock (each for the waiter timeout or its own lease if shorter, its client alone told
-- its token): the writer at the head of the queue once nobody reads, or every reader queued before
-- the next writer. A waiter whose client no longer listens is dropped.
--
-- KEYS[1] write, KEYS[2] readers, KEYS[3] token, KEYS[4] queue, KEYS[5] alive, KEYS[6] writers,
-- KEYS[7] leases: as in rw-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release', 'cancel' or 'pass'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the lock name, sent to the granted clients
local publish = ARGV[5]                   -- 'SPUBLISH' where the cluster shards pub/sub, else 'PUBLISH'
local waiterTimeout = tonumber(ARGV[6])   -- how long a grant pushed to a waiter lasts untaken
local token = ARGV[7]                     -- for 'pass': the token of the pushed grant
local side = ARGV[8]                      -- 'r' read, 'w' write
-- Returns 1 if the owner held that side (release, pass), or held or waited for it (cancel); else
-- 0; an error if a key holds what dlock did not write there (see the prelude).

local write, readers, counter, queue, alive, writers = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local leases = KEYS[7]
local batch = 64                          -- at most this many readers granted by one call

local bad = rest().foreign({'owner', 'zset', 'counter', 'zset', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local now
local function nowMs()
  now = now or math.floor(micros() / 1000)
  return now
end

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
  redis.call('ZREM', writers, waiter)
  redis.call('HDEL', leases, waiter)
end

-- Grants the writer at the head once nobody reads, or else the readers queued before the next
-- writer: at most 8 writers tried, and `batch` readers granted.
local function grantNext()
  if redis.call('EXISTS', queue) == 0 or redis.call('EXISTS', write) == 1 then
    return
  end
  redis.call('ZREMRANGEBYSCORE', readers, '-inf', nowMs())
  local reading = redis.call('ZCARD', readers) > 0
  local g = {alive = alive, leases = leases, counter = counter, channels = channels, publish = publish,
    name = name, waiterTimeout = waiterTimeout, now = now}
  local heads, granted = 0, 0
  rest().walkQueue(queue, 8 + batch + 8, function(waiter)
    local writing = redis.call('ZSCORE', writers, waiter)
    if writing and (granted > 0 or reading or heads == 8) or granted == batch then
      return 'stop'                       -- the readers before the next writer are granted
    end
    if writing then
      heads = heads + 1
    end
    g.kind = writing and 'w' or 'r'
    local pushed, ms = rest().offer(g, waiter)
    if not pushed then
      return 'drop'
    end
    drop(waiter)
    if writing then
      redis.call('SET', write, waiter, 'PX', ms)
    else
      redis.call('ZADD', readers, now + ms, waiter)
      if redis.call('PTTL', readers) < ms then
        redis.call('PEXPIRE', readers, ms)
      end
    end
    rest().markPushed(leases, waiter, pushed, waiterTimeout)
    if writing then
      return 'stop'
    end
    granted = granted + 1
    return 'granted'
  end, drop)
end

-- Frees the owner's grant of this side; true if it held one.
local function free()
  if side == 'w' then
    if redis.call('GET', write) ~= owner then
      return false
    end
    redis.call('DEL', write)
    return true
  end
  return redis.call('ZREM', readers, owner) == 1
end

if mode == 'release' or mode == 'pass' then
  if mode == 'pass' and not rest().pushedUntaken(leases, owner, token) then
    return 0
  end
  local lapses = side == 'r' and redis.call('ZSCORE', readers, owner)
  if not free() then
    return 0
  end
  redis.call('HDEL', leases, owner)
  if lapses and tonumber(lapses) <= nowMs() then
    return 0
  end
  grantNext()
  return 1
end

local wasHead = redis.call('ZRANGE', queue, 0, 0)[1] == owner
local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
redis.call('ZREM', writers, owner)
redis.call('HDEL', leases, owner)
local freed = free()
if freed or (left == 1 and (wasHead or side == 'w')) then
  grantNext()
end
return (freed or left == 1) and 1 or 0
