-- Releases a grant (mode 'release'); gives up a wait (mode 'cancel'): leaves the queue and frees
-- a grant made to the owner meanwhile; or passes on a pushed grant nobody took (mode 'pass'): like
-- 'cancel', but only while the grant is still marked pushed ('@'), as the owner's own retry may
-- have taken it since. A lock freed while owners are queued is granted to the oldest live one,
-- for the waiter timeout or that owner's own lease if it is shorter, and its client alone is told
-- the token; the taker's first renewal extends it to a whole lease. Why the lease bounds it: the
-- taker's client counts the grant valid for at most its lease, and renews it only a third of a
-- lease later; a grant that outlived the lease would lock everyone out for the rest of the waiter
-- timeout once a taker died before that renewal.
--
-- KEYS[1] lock, KEYS[2] token, KEYS[3] queue, KEYS[4] alive, KEYS[5] leases: as in acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release', 'cancel' or 'pass'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the lock name, sent to the woken client
local waiterTimeout = tonumber(ARGV[5])   -- how long a grant pushed to a waiter lasts untaken
local publish = ARGV[6] or 'PUBLISH'     -- 'SPUBLISH' where the cluster shards pub/sub
-- Returns 1 if the owner held (or had been pushed) the lock and it is freed, else 0; an error if a
-- key holds what dlock did not write there (see the prelude).

local lock, counter, queue, alive, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

-- A plain release judges the lock's shape from its own read, and the other keys only when there is
-- a queue to hand over to (acquire.lua says why).
-- The uncontended path first, two commands, before the functions below are made (the prelude says
-- why). A plain release judges the lock's shape from its own read, and the other keys only when
-- there is a queue to hand over to (acquire.lua says why).
local value, state, holder
if mode == 'release' then
  value = redis.pcall('GET', lock)
  local what = misfitRead(lock, value, 'lock')
  if what then
    return foreignAt(1, what)
  end
  if not value then
    return 0
  end
  state, holder = string.match(value, '^(.)%d* (.*)$')
  if holder ~= owner then
    return 0
  end
  if state == '-' then
    redis.call('DEL', lock)
    return 1
  end
else
  local bad = rest().foreign({'lock', 'counter', 'zset', 'zset', 'leases'})
  if bad then
    return bad
  end
end

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
  redis.call('HDEL', leases, waiter)
end

-- Drops lapsed waiters, then grants the lock to the oldest waiter whose client still listens.
-- `last`: what a GET of the counter answered in this call, if it was read (offer, in the prelude).
local function handOver(last)
  local now = math.floor(micros() / 1000)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', alive, '-inf', now, 'LIMIT', 0, 16)) do
    drop(gone)
  end
  local g = {leases = leases, counter = counter, channels = channels, publish = publish, name = name,
    kind = '', waiterTimeout = waiterTimeout, last = last}
  rest().walkQueue(queue, 8, function(head)
    local token, ms = rest().offer(g, head)
    if token then
      drop(head)
      redis.call('SET', lock, '@' .. ms .. ' ' .. head, 'PX', ms)
      return 'stop'
    end
    return 'drop'
  end, drop)
end

if mode == 'release' then
  -- Held while owners may be queued: the queue's keys are judged before anything is written.
  local last = redis.pcall('GET', counter)
  local what = misfitRead(counter, last, 'counter')
  if what then
    return foreignAt(2, what)
  end
  local bad = rest().foreign({false, false, 'zset', 'zset', 'leases'})
  if bad then
    return bad
  end
  redis.call('DEL', lock)
  handOver(last)
  return 1
end

-- A cancel or a pass.
drop(owner)
value = redis.call('GET', lock)
if not value then
  return 0
end
state, holder = string.match(value, '^(.)%d* (.*)$')
if holder ~= owner or (mode == 'pass' and state ~= '@') then
  return 0
end
redis.call('DEL', lock)
if state ~= '-' then
  handOver()
end
return 1
