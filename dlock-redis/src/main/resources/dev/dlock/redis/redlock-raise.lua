-- Redlock's second phase: raises this node's fencing-token counter to the token of a grant, but
-- only while the grant's owner still holds the lock here, so a node that has already let the lock
-- go (expired, released, taken by another) is not counted towards the raise majority.
--
-- KEYS[1] lock, KEYS[2] token: as in acquire.lua
local owner = ARGV[1]
local token = tonumber(ARGV[2])   -- the grant's token: the highest counter among its granting nodes
-- Returns 1 if the owner holds the lock here and the counter is now at least the token, else 0; an
-- error if a key holds what dlock did not write there (see the prelude).

local bad = rest().foreign({'lock', 'counter'})
if bad then
  return bad
end

local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local holder = string.match(value, '^.%d* (.*)$')
if holder ~= owner then
  return 0
end
if (tonumber(redis.call('GET', KEYS[2])) or 0) < token then
  redis.call('SET', KEYS[2], ARGV[2])
end
return 1
