-- Extends every given grant that its owner still holds.
--
-- KEYS[i]   the lock key of grant i (see acquire.lua)
local lease = ARGV[1]   -- the new lease in milliseconds
-- ARGV[i + 1] the owner of grant i
-- Returns the positions i of the grants no longer held by their owner.

local lost = {}
for i, lock in ipairs(KEYS) do
  local value = redis.call('GET', lock)
  local state, holder
  if value then
    state, holder = string.match(value, '^(.)%d* (.*)$')
  end
  if state ~= nil and holder == ARGV[i + 1] then
    if state == '@' then
      -- A grant a release pushed, renewed by its taker: held now, for a whole lease.
      redis.call('SET', lock, '+' .. lease .. ' ' .. holder, 'PX', lease)
    else
      redis.call('PEXPIRE', lock, lease)
    end
  else
    lost[#lost + 1] = i
  end
end
return lost
