-- Extends every given fair, read, write or permit grant that its owner still holds.
--
-- KEYS[i]   the key of grant i: the owner string of a fair or write lock ('s'), or the zset of
--           readers or permit holders, owner -> server millisecond its lease runs out ('z')
local lease = tonumber(ARGV[1])   -- the new lease in milliseconds
-- ARGV[2i]     the type of grant i: 's' or 'z'
-- ARGV[2i + 1] the owner of grant i
-- Returns the positions i of the grants no longer held by their owner; a grant whose key holds what
-- dlock did not write there (see the prelude) is one of them, as {i, what the key holds}, and the
-- key is left alone.

local now = math.floor(micros() / 1000)

local lost = {}
for i, key in ipairs(KEYS) do
  local kind, owner = ARGV[2 * i], ARGV[2 * i + 1]
  -- The one read of the key, which the shape check judges too (see renew.lua).
  local read
  if kind == 's' then
    read = redis.pcall('GET', key)
  else
    read = redis.pcall('ZSCORE', key, owner)
  end
  local what = misfitRead(key, read, kind == 's' and 'owner' or 'zset')
  if what then
    lost[#lost + 1] = {i, what}
  elseif kind == 's' and read == owner then
    redis.call('PEXPIRE', key, lease)
  elseif kind == 'z' and read and tonumber(read) > now then
    redis.call('ZADD', key, 'XX', now + lease, owner)
    if redis.call('PTTL', key) < lease then
      redis.call('PEXPIRE', key, lease)
    end
  else
    lost[#lost + 1] = i
  end
end
return lost
