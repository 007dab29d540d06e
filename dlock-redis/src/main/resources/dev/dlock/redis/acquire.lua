-- Grants a lock to an owner, or says who holds it and for how long.
--
-- KEYS[1] lock   string '<state><ms> <owner>': state '-' held, '+' held while owners may be
--                queued, '@' granted by a release to the queue head, for the waiter timeout or
--                the head's own lease if that is shorter, and not yet renewed or retried by it; ms
--                is the lease (or that grant's time) in milliseconds, restored by release.lua in a
--                rare case
-- KEYS[2] token  the fencing-token counter of the lock (drawToken, in the prelude); it never expires
-- KEYS[3] queue  zset: waiting owner -> arrival, server microseconds (FIFO order)
-- KEYS[4] alive  zset: waiting owner -> server millisecond at which its place lapses
-- KEYS[5] leases hash: waiting owner -> its lease in milliseconds, so that a release grants it no
--                longer than the owner itself counts on holding it (release.lua)
local owner = ARGV[1]
local lease = ARGV[2]                     -- lease in milliseconds
local mode = ARGV[3]                      -- '0' one-shot, '1' will wait, '2' will wait, may be queued
local waiterTimeout = tonumber(ARGV[4])   -- how long a waiter keeps its place without asking again
-- Returns the token for a grant, or {0, holder's ms left, holder, token counter}; an error if a
-- key holds what dlock did not write there (see the prelude). The counter on a refusal lets the
-- client tell a grant pushed to it before this refusal (its token at or below the counter: gone,
-- since the refusal found it holding nothing) from one pushed after it.

local lock, counter, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

-- The shapes are judged before anything is written, but only as far as the path taken needs: the
-- uncontended path reads the counter, which it needs anyway, and its SET NX writes the lock only
-- where no key is; the queue's keys are looked at when the path touches them. Why: each command a
-- script runs costs the server's one thread about a microsecond, and checking all five keys on
-- every call cost as much as the grant itself.
local last = redis.pcall('GET', counter)
local what = misfitRead(counter, last, 'counter')
if what then
  return foreignAt(2, what)
end
local bad = mode == '2' and rest().foreign({false, false, 'zset', 'zset', 'leases'})
if bad then
  return bad
end

-- The uncontended path.
if redis.call('SET', lock, '-' .. lease .. ' ' .. owner, 'NX', 'PX', lease) then
  if mode == '2' then
    redis.call('ZREM', queue, owner)
    redis.call('ZREM', alive, owner)
    redis.call('HDEL', leases, owner)
    if redis.call('EXISTS', queue) == 1 then
      redis.call('SET', lock, '+' .. lease .. ' ' .. owner, 'PX', lease)
    end
  end
  return drawToken(counter, nil, SPARE, last)
end

-- Past the uncontended path, whose call makes no function of its own (the prelude says why).
-- The token of the owner's standing grant: the last drawn. Should the counter be gone (an
-- operator's DEL, an allkeys eviction policy) a fresh one, still above every token before it.
local function ownToken(key)
  return tonumber(redis.call('GET', key)) or drawToken(key, nil, SPARE)
end

local value = redis.pcall('GET', lock)
what = misfitRead(lock, value, 'lock')
if what then
  return foreignAt(1, what)
end
bad = mode ~= '2' and rest().foreign({false, false, 'zset', 'zset', 'leases'})
if bad then
  return bad
end
if not value then
  return {0, 0, '', tonumber(redis.call('GET', counter)) or 0}
end
local state, holder = string.match(value, '^(.)%d* (.*)$')

if holder == owner then
  if state == '@' then
    -- The grant a release pushed to this waiter, whose message this retry overtook: take it,
    -- with its token, for a whole lease.
    redis.call('ZREM', queue, owner)
    redis.call('ZREM', alive, owner)
    redis.call('HDEL', leases, owner)
    local next = redis.call('EXISTS', queue) == 1 and '+' or '-'
    redis.call('SET', lock, next .. lease .. ' ' .. owner, 'PX', lease)
    return ownToken(counter)
  end
  -- A retry of an attempt that was granted but whose answer was lost: the same grant.
  redis.call('PEXPIRE', lock, lease)
  return ownToken(counter)
end

local left = redis.call('PTTL', lock)
if mode ~= '0' then
  local now = micros()
  redis.call('ZADD', queue, 'NX', now, owner)
  redis.call('ZADD', alive, math.floor(now / 1000) + waiterTimeout, owner)
  redis.call('HSET', leases, owner, lease)
  redis.call('PEXPIRE', queue, waiterTimeout)
  redis.call('PEXPIRE', alive, waiterTimeout)
  redis.call('PEXPIRE', leases, waiterTimeout)
  if state == '-' then
    redis.call('SET', lock, '+' .. string.sub(value, 2), 'KEEPTTL')
  end
end
return {0, left, holder, tonumber(redis.call('GET', counter)) or 0}
