-- Redlock's acquire on one node: grants the lock to an owner, or says who holds it and for how
-- long. A refused owner that will wait takes a place in the lock's queue, so that a release here
-- tells its client (redlock-release.lua). Unlike acquire.lua, nothing here is ever granted to a
-- waiter by a release: one node cannot grant a Redlock, so a place earns a waiter a message only.
--
-- KEYS[1] lock, KEYS[2] token: as in acquire.lua (the state is always '-')
-- KEYS[3] queue  zset: waiting owner -> its arrival as its client stamped it. Every node gets the
--                same stamp, so all nodes agree on the oldest waiter, and tell the same one.
-- KEYS[4] alive  zset: waiting owner -> server millisecond at which its place lapses
local owner = ARGV[1]
local ttl = ARGV[2]                       -- the key's time to live in milliseconds
local arrival = ARGV[3]                   -- the owner's arrival stamp; '' for a one-shot try
local waiterTimeout = tonumber(ARGV[4])   -- how long a waiter keeps its place without asking again
-- Returns the token for a grant, or {0, holder's ms left, holder}; an error if a key holds what
-- dlock did not write there (see the prelude).

local lock, counter, queue, alive = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local bad = rest().foreign({'lock', 'counter', 'zset', 'zset'})
if bad then
  return bad
end

local function leave()
  redis.call('ZREM', queue, owner)
  redis.call('ZREM', alive, owner)
end

if redis.call('SET', lock, '-' .. ttl .. ' ' .. owner, 'NX', 'PX', ttl) then
  leave()
  return drawToken(counter)
end

local value = redis.call('GET', lock)
local holder = string.match(value, '^.%d* (.*)$')
if holder == owner then
  -- A grant this owner got here before and has not undone yet (the undo is not awaited): the
  -- same grant, with the token drawn for it, or a fresh one should the counter be gone.
  leave()
  redis.call('PEXPIRE', lock, ttl)
  return tonumber(redis.call('GET', counter)) or drawToken(counter)
end

if arrival ~= '' then
  local now = math.floor(micros() / 1000)
  redis.call('ZADD', queue, 'NX', arrival, owner)
  redis.call('ZADD', alive, now + waiterTimeout, owner)
  redis.call('PEXPIRE', queue, waiterTimeout)
  redis.call('PEXPIRE', alive, waiterTimeout)
end
return {0, redis.call('PTTL', lock), holder}
