-- Grants one permit of a semaphore in queue order, or queues the owner.
--
-- KEYS[1] holders  zset: owner holding a permit -> server millisecond at which its lease runs out
-- KEYS[2] meta     hash: 'permits' the permit count every client must agree on, 'token' the
--                  fencing-token counter; it never expires
-- KEYS[3] queue    zset: waiting owner -> arrival, server microseconds (FIFO order)
-- KEYS[4] alive    zset: waiting owner -> server millisecond at which its place lapses
-- KEYS[5] leases   hash: waiting owner -> its lease in milliseconds, which bounds a grant a release
--                  pushes to it (sem-release.lua); then '@<token>' while that grant is untaken
local owner = ARGV[1]
local lease = tonumber(ARGV[2])           -- lease in milliseconds
local permits = tonumber(ARGV[3])         -- the permit count this client expects
local willWait = ARGV[4] == '1'           -- queue the owner if refused
local waiterTimeout = tonumber(ARGV[5])   -- how long a waiter keeps its place without asking again
-- Returns the token for a grant, {0, ms until a lease runs out (-1: only the queue), '', token
-- counter} (fair-acquire.lua says why the counter), or {-1, stored count} when the semaphore is in
-- use with another permit count; an error if a key holds what dlock did not write there (see the
-- prelude).

local holders, meta, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local bad = rest().foreign({'zset', 'meta', 'zset', 'zset', 'leases'})
if bad then
  return bad
end

local arrival = micros()
local now = math.floor(arrival / 1000)

-- Extends a key's expiry to at least ms from now; never shortens another holder's.
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, ms)
  end
end

local function grant(queued)
  redis.call('ZADD', holders, now + lease, owner)
  keep(holders, lease)
  if queued then
    redis.call('ZREM', queue, owner)
    redis.call('ZREM', alive, owner)
  end
  -- Held already (a grant a release pushed, which this retry takes, or one whose answer was lost)
  -- or not: a mark of a push never taken must not outlive this grant.
  redis.call('HDEL', leases, owner)
  return drawToken(meta, 'token')
end

redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
local held = redis.call('ZCARD', holders)
local waiting = 0
if redis.call('EXISTS', queue) == 1 then
  -- Drop a bounded number of lapsed waiters, so a crashed one holds nobody back for long.
  local lapsed = redis.call('ZRANGEBYSCORE', alive, '-inf', now, 'LIMIT', 0, 16)
  if #lapsed > 0 then
    redis.call('ZREM', queue, unpack(lapsed))
    redis.call('ZREM', alive, unpack(lapsed))
    redis.call('HDEL', leases, unpack(lapsed))
  end
  waiting = redis.call('ZCARD', queue)
end

local stored = tonumber(redis.call('HGET', meta, 'permits'))
if stored ~= permits then
  if stored and (held > 0 or waiting > 0) then
    return {-1, stored}
  end
  redis.call('HSET', meta, 'permits', permits)
end

local ahead = waiting
if waiting > 0 then
  ahead = redis.call('ZRANK', queue, owner) or waiting
end
if held + ahead < permits then
  return grant(waiting > 0)
end
local mine = redis.call('ZSCORE', holders, owner)
if mine then
  -- A retry of an attempt that was granted but whose answer was lost: grant it again.
  return grant(waiting > 0)
end

if willWait then
  redis.call('ZADD', queue, 'NX', arrival, owner)
  redis.call('ZADD', alive, now + waiterTimeout, owner)
  redis.call('HSET', leases, owner, lease)
  redis.call('PEXPIRE', queue, waiterTimeout)
  redis.call('PEXPIRE', alive, waiterTimeout)
  redis.call('PEXPIRE', leases, waiterTimeout)
end
local last = tonumber(redis.call('HGET', meta, 'token')) or 0
if held >= permits then
  local first = redis.call('ZRANGE', holders, 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now, '', last}
end
return {0, -1, '', last}
