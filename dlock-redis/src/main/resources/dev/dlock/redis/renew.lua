-- Extends every given grant that its owner still holds.
--
-- KEYS[i]   the lock key of grant i (see acquire.lua)
local lease = ARGV[1]   -- the new lease in milliseconds
-- ARGV[i + 1] the owner of grant i
-- Returns the positions i of the grants no longer held by their owner; a grant whose key holds what
-- dlock did not write there (see the prelude) is one of them, as {i, what the key holds}, and the
-- key is left alone.

-- One GET per grant, whose value both the shape check and the owner check read: with thousands of
-- grants a call, every command per grant counts.
local lost = {}
for i, lock in ipairs(KEYS) do
  local value = redis.pcall('GET', lock)
  local what = misfitRead(lock, value, 'lock')
  local state, holder
  if not what and value then
    state, holder = string.match(value, '^(.)%d* (.*)$')
  end
  if what then
    lost[#lost + 1] = {i, what}
  elseif holder == ARGV[i + 1] then
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
