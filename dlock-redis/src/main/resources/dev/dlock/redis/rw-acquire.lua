-- Grants the read or the write side of a read-write lock, or queues the owner.
--
-- KEYS[1] write    string: the owner holding the write lock, expiring with its lease
-- KEYS[2] readers  zset: reading owner -> server millisecond at which its lease runs out
-- KEYS[3] token    the fencing-token counter of the lock, for both sides; it never expires
-- KEYS[4] queue    zset: waiting owner (reader or writer) -> arrival, server microseconds
-- KEYS[5] alive    zset: waiting owner -> server millisecond at which its place lapses
-- KEYS[6] writers  zset: the writers among the waiting owners -> their arrival, as in queue
-- KEYS[7] leases   hash: waiting owner -> its lease in milliseconds, which bounds a grant a release
--                  pushes to it (rw-release.lua); then '@<token>' while that grant is untaken
local owner = ARGV[1]
local lease = tonumber(ARGV[2])           -- lease in milliseconds
local side = ARGV[3]                      -- 'r' read, 'w' write
local willWait = ARGV[4] == '1'           -- queue the owner if refused
local waiterTimeout = tonumber(ARGV[5])   -- how long a waiter keeps its place without asking again
local downgrade = ARGV[6]                 -- for 'r': the write owner it may read beside, or ''
-- Returns the token for a grant, or {0, ms until a lease runs out (-1: only the queue), holder,
-- token counter} (fair-acquire.lua says why the counter); an error if a key holds what dlock did
-- not write there (see the prelude).

local write, readers, counter, queue, alive, writers = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local leases = KEYS[7]

local bad = rest().foreign({'owner', 'zset', 'counter', 'zset', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local now
local function nowMs()
  now = now or micros()
  return math.floor(now / 1000)
end

-- Extends a key's expiry to at least ms from now; never shortens another holder's.
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, ms)
  end
end

local function dequeue()
  redis.call('ZREM', queue, owner)
  redis.call('ZREM', alive, owner)
  redis.call('ZREM', writers, owner)
  redis.call('HDEL', leases, owner)
end

local function grantRead()
  -- Read already (a grant a release pushed, which this retry takes, or one whose answer was lost)
  -- or not: a mark of a push never taken must not outlive this grant.
  redis.call('ZADD', readers, nowMs() + lease, owner)
  redis.call('HDEL', leases, owner)
  keep(readers, lease)
  return drawToken(counter)
end

local writer = redis.call('GET', write)
if side == 'w' and writer == owner then
  -- A grant a release pushed, taken by this retry that overtook its message, or a retry of an
  -- attempt that was granted but whose answer was lost: grant it again, taken.
  redis.call('HDEL', leases, owner)
  redis.call('PEXPIRE', write, lease)
  return drawToken(counter)
end

local queued = redis.call('EXISTS', queue) == 1
if queued then
  -- Drop a bounded number of lapsed waiters, so a crashed one holds nobody back for long.
  local lapsed = redis.call('ZRANGEBYSCORE', alive, '-inf', nowMs(), 'LIMIT', 0, 16)
  if #lapsed > 0 then
    redis.call('ZREM', queue, unpack(lapsed))
    redis.call('ZREM', alive, unpack(lapsed))
    redis.call('ZREM', writers, unpack(lapsed))
    redis.call('HDEL', leases, unpack(lapsed))
  end
end

local readersLeft = false
if side == 'w' then
  local ok = not writer
  if ok and redis.call('EXISTS', readers) == 1 then
    redis.call('ZREMRANGEBYSCORE', readers, '-inf', nowMs())
    readersLeft = redis.call('ZCARD', readers) > 0
    ok = not readersLeft
  end
  if ok and queued then
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    ok = not head or head == owner
  end
  if ok then
    redis.call('SET', write, owner, 'PX', lease)
    if queued then
      dequeue()
    else
      redis.call('HDEL', leases, owner) -- a mark of a push never taken must not outlive this grant
    end
    return drawToken(counter)
  end
else
  local ok = not writer or (downgrade ~= '' and writer == downgrade)
  if ok and downgrade == '' and queued then
    -- A reader passes the readers queued ahead of it, never a writer.
    local first = redis.call('ZRANGE', writers, 0, 0, 'WITHSCORES')
    if first[1] then
      local mine = redis.call('ZSCORE', queue, owner)
      ok = mine ~= false and tonumber(mine) < tonumber(first[2])
    end
  end
  if ok then
    if queued then
      dequeue()
    end
    return grantRead()
  end
  local held = redis.call('ZSCORE', readers, owner)
  if held and tonumber(held) > nowMs() then
    -- A retry of a read granted whose answer was lost, now behind a writer: grant it again.
    dequeue()
    return grantRead()
  end
end

if willWait then
  nowMs()
  redis.call('ZADD', queue, 'NX', now, owner)
  if side == 'w' then
    redis.call('ZADD', writers, 'NX', redis.call('ZSCORE', queue, owner), owner)
    redis.call('PEXPIRE', writers, waiterTimeout)
  end
  redis.call('ZADD', alive, nowMs() + waiterTimeout, owner)
  redis.call('HSET', leases, owner, lease)
  redis.call('PEXPIRE', queue, waiterTimeout)
  redis.call('PEXPIRE', alive, waiterTimeout)
  redis.call('PEXPIRE', leases, waiterTimeout)
end
local last = tonumber(redis.call('GET', counter)) or 0
if writer then
  return {0, redis.call('PTTL', write), writer, last}
end
if readersLeft then
  local first = redis.call('ZRANGE', readers, 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - nowMs(), '', last}
end
return {0, -1, '', last}
