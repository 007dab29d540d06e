-- Reads the current grant of a lock in one step, so owner, token and time left agree.
--
-- KEYS[1] lock, KEYS[2] token: as in acquire.lua
-- Returns {owner, ms left, token}, or {} when the lock is free.

local value = redis.call('GET', KEYS[1])
if not value then
  return {}
end
local state, holder = string.match(value, '^(.)%d* (.*)$')
if state == nil then
  return {}
end
return {holder, redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or 0)}
