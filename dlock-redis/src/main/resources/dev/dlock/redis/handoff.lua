-- Passes a grant to another owner of the same client in one step: the lock is never free, no
-- waiter is woken, and the new owner gets the next token, so its grant ranks above the old one and
-- below any grant made later, a queued waiter's included. Queued owners stay queued.
--
-- KEYS[1] lock, KEYS[2] token, KEYS[3] queue, KEYS[4] alive, KEYS[5] leases: as in acquire.lua
local from = ARGV[1]    -- the owner that holds the grant
local to = ARGV[2]      -- the owner that takes it
local lease = ARGV[3]   -- the new grant's lease in milliseconds
-- Returns the new token, or 0 if `from` no longer holds the lock (nothing changes then); an error
-- if a key holds what dlock did not write there (see the prelude).

local lock, counter = KEYS[1], KEYS[2]

local bad = foreign({'lock', 'counter'})
if bad then
  return bad
end

local value = redis.call('GET', lock)
if not value then
  return 0
end
local state, holder = string.match(value, '^(.)%d* (.*)$')
if holder ~= from then
  return 0
end
if state == '@' then
  state = '+' -- taken: no longer a pushed grant that a late message may pass on
end
redis.call('SET', lock, state .. lease .. ' ' .. to, 'PX', lease)
return drawToken(counter)
