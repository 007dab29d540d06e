-- Returns a permit (mode 'release'), or gives up a wait (mode 'cancel'): leaves the queue and
-- returns a permit granted to the owner meanwhile. Then wakes as many of the oldest live waiters
-- as permits are free, each through its client's channel; a waiter whose client no longer
-- listens is dropped.
--
-- KEYS[1] holders, KEYS[2] meta, KEYS[3] queue, KEYS[4] alive: as in sem-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release' or 'cancel'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the semaphore name, sent to the woken clients
local publish = ARGV[5] or 'PUBLISH'     -- 'SPUBLISH' where the cluster shards pub/sub
-- Returns 1 if the owner held a permit (release), or held or waited for one (cancel); else 0; an
-- error if a key holds what dlock did not write there (see the prelude).

local holders, meta, queue, alive = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local bad = foreign({'zset', 'meta', 'zset', 'zset'})
if bad then
  return bad
end

local now = math.floor(micros() / 1000)

local function wake()
  if redis.call('EXISTS', queue) == 0 then
    return
  end
  redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
  local free = tonumber(redis.call('HGET', meta, 'permits') or 0) - redis.call('ZCARD', holders)
  if free <= 0 then
    return
  end
  -- The oldest waiters, one per free permit, with room to skip a few that are gone.
  walkQueue(queue, math.min(free, 64) + 8, function(waiter)
    if not tell(alive, waiter, now, channels, publish, name) then
      return 'drop'
    end
    free = free - 1
    return free > 0 and 'keep' or 'stop'
  end, function(waiter)
    redis.call('ZREM', queue, waiter)
    redis.call('ZREM', alive, waiter)
  end)
end

if mode == 'release' then
  local lapses = redis.call('ZSCORE', holders, owner)
  if not lapses then
    return 0
  end
  redis.call('ZREM', holders, owner)
  if tonumber(lapses) <= now then
    return 0
  end
  wake()
  return 1
end

local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
local freed = redis.call('ZREM', holders, owner) == 1
if freed or left == 1 then
  wake()
  return 1
end
return 0
