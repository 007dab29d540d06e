-- Releases one side of a read-write lock (mode 'release'), or gives up a wait (mode 'cancel'):
-- leaves the queue and frees a grant made to the owner meanwhile. Then wakes who may now go: the
-- writer at the head of the queue once nobody reads, or the clients of the readers queued before
-- the next writer, each client once. A waiter whose client no longer listens is dropped.
--
-- KEYS[1] write, KEYS[2] readers, KEYS[3] token, KEYS[4] queue, KEYS[5] alive, KEYS[6] writers:
-- as in rw-acquire.lua
local owner = ARGV[1]
local side = ARGV[2]                      -- 'r' read, 'w' write
local mode = ARGV[3]                      -- 'release' or 'cancel'
local channels = ARGV[4]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[5]                      -- the lock name, sent to the woken clients
local publish = ARGV[6] or 'PUBLISH'     -- 'SPUBLISH' where the cluster shards pub/sub
-- Returns 1 if the owner held that side (release), or held or waited for it (cancel); else 0; an
-- error if a key holds what dlock did not write there (see the prelude).

local write, readers, queue, alive, writers = KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[6]
local batch = 64                          -- at most this many readers woken by one call

local bad = foreign({'owner', 'zset', 'counter', 'zset', 'zset', 'zset'})
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
end

-- Wakes the writer at the head once nobody reads, or else the readers queued before the next
-- writer, each client once: at most 8 heads tried, and `batch` readers looked at.
local function wake()
  if redis.call('EXISTS', queue) == 0 or redis.call('EXISTS', write) == 1 then
    return
  end
  local heads, readersSeen, told = 0, 0, {}
  walkQueue(queue, 8 + batch, function(waiter)
    if readersSeen == 0 and heads == 8 then
      return 'stop'
    end
    if redis.call('ZSCORE', writers, waiter) then
      if readersSeen > 0 then
        return 'stop'                     -- the next writer: the readers before it are told
      end
      heads = heads + 1
      redis.call('ZREMRANGEBYSCORE', readers, '-inf', nowMs())
      if redis.call('ZCARD', readers) > 0 or tell(alive, waiter, nowMs(), channels, publish, name) then
        return 'stop'
      end
      return 'drop'
    end
    if readersSeen == batch then
      return 'stop'
    end
    readersSeen = readersSeen + 1
    local client = string.match(waiter, '^(.*):%d+$')
    if told[client] then
      return 'keep'
    end
    if tell(alive, waiter, nowMs(), channels, publish, name) then
      told[client] = true
      return 'keep'
    end
    return 'drop'
  end, drop)
end

if mode == 'release' then
  if side == 'w' then
    if redis.call('GET', write) ~= owner then
      return 0
    end
    redis.call('DEL', write)
  else
    local lapses = redis.call('ZSCORE', readers, owner)
    if not lapses then
      return 0
    end
    redis.call('ZREM', readers, owner)
    if tonumber(lapses) <= nowMs() then
      return 0
    end
  end
  wake()
  return 1
end

local wasHead = redis.call('ZRANGE', queue, 0, 0)[1] == owner
local left = redis.call('ZREM', queue, owner)
redis.call('ZREM', alive, owner)
redis.call('ZREM', writers, owner)
local freed
if side == 'w' then
  freed = redis.call('GET', write) == owner
  if freed then
    redis.call('DEL', write)
  end
else
  freed = redis.call('ZREM', readers, owner) == 1
end
if freed or (left == 1 and (wasHead or side == 'w')) then
  wake()
end
return (freed or left == 1) and 1 or 0
