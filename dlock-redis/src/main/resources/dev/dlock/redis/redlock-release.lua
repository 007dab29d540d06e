-- Redlock's release on one node (mode 'release'); the undo of a grant that won no majority
-- ('undo': the owner keeps its place, as it waits on); giving up a wait ('cancel': leaves the
-- queue and frees a grant made meanwhile); or leaving the queue only ('pass': for a message that
-- reached an owner no longer waiting, so it never frees a grant). After any mode but 'undo', a
-- lock that is free here tells the client of the oldest live waiter ('*<seq> <release> <name>',
-- see tell in the prelude); a waiter whose client no longer listens is dropped and the next one is
-- tried. Why 'undo' tells nobody: a grant that won no majority was never the lock, and the waiter
-- it would tell is usually the undoer itself. Why 'cancel' and 'pass' tell: the owner leaving may
-- have been told already, and the next waiter must not wait for a release that has come and gone.
--
-- KEYS[1] lock, KEYS[2] token, KEYS[3] queue, KEYS[4] alive: as in redlock-acquire.lua
local owner = ARGV[1]
local mode = ARGV[2]                      -- 'release', 'undo', 'cancel' or 'pass'
local channels = ARGV[3]                  -- channel prefix; a client's channel adds its client id
local name = ARGV[4]                      -- the lock name, sent to the told client
-- ARGV[5]: digits naming this release, the same on every node (a 'pass' sends on the one it got), so
-- that the told client counts the nodes that told it of one release, never of two.
local release = ARGV[5]
-- Returns 1 if the owner held the lock here and it is freed, else 0; an error if a key holds what
-- dlock did not write there (see the prelude).

local lock, queue, alive = KEYS[1], KEYS[3], KEYS[4]

local bad = rest().foreign({'lock', 'counter', 'zset', 'zset'})
if bad then
  return bad
end

local function drop(waiter)
  redis.call('ZREM', queue, waiter)
  redis.call('ZREM', alive, waiter)
end

local value = redis.call('GET', lock)
local freed = value ~= false and mode ~= 'pass' and string.match(value, '^.%d* (.*)$') == owner
if freed then
  redis.call('DEL', lock)
end
if mode == 'undo' then
  return freed and 1 or 0
end
drop(owner)
if (freed or not value) and redis.call('EXISTS', queue) == 1 then
  local now = math.floor(micros() / 1000)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', alive, '-inf', now, 'LIMIT', 0, 16)) do
    drop(gone)
  end
  rest().walkQueue(queue, 8, function(head)
    return rest().tell(alive, head, now, channels, 'PUBLISH', release .. ' ' .. name) and 'stop' or 'drop'
  end, drop)
end
return freed and 1 or 0
