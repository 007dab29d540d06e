-- Grants a fair lock in queue order, or queues the owner and says who holds it.
--
-- KEYS[1] owner  string: the holding owner, expiring with its lease
-- KEYS[2] token  the fencing-token counter of the fair lock; it never expires
-- KEYS[3] queue  zset: waiting owner -> arrival, server microseconds (FIFO order)
-- KEYS[4] alive  zset: waiting owner -> server millisecond at which its place lapses
-- KEYS[5] leases hash: waiting owner -> its lease in milliseconds, which bounds a grant a release
--                pushes to it (fair-release.lua); then '@<token>' while that grant is untaken
local owner = ARGV[1]
local lease = ARGV[2]                     -- lease in milliseconds
local willWait = ARGV[3] == '1'           -- queue the owner if refused
local waiterTimeout = tonumber(ARGV[4])   -- how long a waiter keeps its place without asking again
-- Returns the token for a grant, or {0, holder's ms left (-1: only the queue is ahead), holder,
-- token counter}; an error if a key holds what dlock did not write there (see the prelude). The
-- counter on a refusal lets the client tell a grant pushed to it after this refusal from one
-- pushed before, which this refusal shows is gone (acquire.lua says more).

local lock, counter, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local bad = rest().foreign({'owner', 'counter', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local holder = redis.call('GET', lock)
if holder == owner then
  -- A grant a release pushed, taken by this retry that overtook its message, or a retry of an
  -- attempt that was granted but whose answer was lost: grant it again, taken.
  redis.call('HDEL', leases, owner)
  redis.call('PEXPIRE', lock, lease)
  return drawToken(counter)
end

local now
local head = false
if redis.call('EXISTS', queue) == 1 then
  now = micros()
  -- Drop a bounded number of lapsed waiters, so a crashed head stalls nobody for long.
  local lapsed = redis.call('ZRANGEBYSCORE', alive, '-inf', math.floor(now / 1000), 'LIMIT', 0, 16)
  if #lapsed > 0 then
    redis.call('ZREM', queue, unpack(lapsed))
    redis.call('ZREM', alive, unpack(lapsed))
    redis.call('HDEL', leases, unpack(lapsed))
  end
  head = redis.call('ZRANGE', queue, 0, 0)[1] or false
end

if not holder and (not head or head == owner) then
  redis.call('SET', lock, owner, 'PX', lease)
  if head then
    redis.call('ZREM', queue, owner)
    redis.call('ZREM', alive, owner)
  end
  -- A mark left by a push this owner never took must not outlive this grant: a late 'pass' of
  -- that push would free this one.
  redis.call('HDEL', leases, owner)
  return drawToken(counter)
end

if willWait then
  now = now or micros()
  redis.call('ZADD', queue, 'NX', now, owner)
  redis.call('ZADD', alive, math.floor(now / 1000) + waiterTimeout, owner)
  redis.call('HSET', leases, owner, lease)
  redis.call('PEXPIRE', queue, waiterTimeout)
  redis.call('PEXPIRE', alive, waiterTimeout)
  redis.call('PEXPIRE', leases, waiterTimeout)
end
local last = tonumber(redis.call('GET', counter)) or 0
if holder then
  return {0, redis.call('PTTL', lock), holder, last}
end
return {0, -1, '', last}
