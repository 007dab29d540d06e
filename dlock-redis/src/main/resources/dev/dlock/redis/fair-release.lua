-- Releases a fair lock (mode 'release'), or gives up a wait (mode 'cancel'): leaves the queue and
-- frees a grant made to the owner meanwhile. A free lock wakes the client of the oldest live
-- waiter; a waiter whose client no longer listens is dropped and the next one is tried.
--
-- KEYS[1] owner, KEYS[2] token, KEYS[3] queue, KEYS[4] alive: as in fair-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release' or 'cancel'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the lock name, sent to the woken client
local publish = ARGV[5] or 'PUBLISH'     -- 'SPUBLISH' where the cluster shards pub/sub
-- Returns 1 if the owner held the lock (release), or held or waited for it (cancel); else 0; an
-- error if a key holds what dlock did not write there (see the prelude).

local lock, queue, alive = KEYS[1], KEYS[3], KEYS[4]

local bad = foreign({'owner', 'counter', 'zset', 'zset'})
if bad then
  return bad
end

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
end

local function wakeHead()
  if redis.call('EXISTS', queue) == 0 or redis.call('EXISTS', lock) == 1 then
    return
  end
  local now = math.floor(micros() / 1000)
  walkQueue(queue, 8, function(head)
    return tell(alive, head, now, channels, publish, name) and 'stop' or 'drop'
  end, drop)
end

if mode == 'release' then
  if redis.call('GET', lock) ~= owner then
    return 0
  end
  redis.call('DEL', lock)
  wakeHead()
  return 1
end

local wasHead = redis.call('ZRANGE', queue, 0, 0)[1] == owner
local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
local freed = redis.call('GET', lock) == owner
if freed then
  redis.call('DEL', lock)
end
if freed or wasHead then
  wakeHead()
end
return (freed or left == 1) and 1 or 0
