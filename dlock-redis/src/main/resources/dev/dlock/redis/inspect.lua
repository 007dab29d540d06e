-- Reads the current grant of a lock in one step, so owner, token and time left agree.
--
-- KEYS[1] lock, KEYS[2] token: as in acquire.lua
-- Returns {owner, ms left, token}, or {} when the lock is free; an error if a key holds what dlock
-- did not write there (see the prelude), as such a lock is neither free nor held.

local bad = rest().foreign({'lock', 'counter'})
if bad then
  return bad
end

local value = redis.call('GET', KEYS[1])
if not value then
  return {}
end
local holder = string.match(value, '^.%d* (.*)$')
return {holder, redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or 0)}
