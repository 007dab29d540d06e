-- The prelude: Scripts puts this chunk in front of every script of this package before loading
-- it, so that what the scripts share is written once. It defines locals, and first asks for
-- replication by effects: the scripts read TIME before they write, which a replica must get as the
-- values written, never run again by its own clock. Redis 7 always does so; 5 and 6 do by default
-- (lua-replicate-commands yes), and this call makes it so whatever that setting says.
redis.replicate_commands()

-- The server's clock in microseconds, read once per call: a script runs in one go, and a release
-- that hands over reads it for the waiters' places and again for the token. Lua numbers are
-- doubles, exact for integers below 2^53, which in microseconds is the year 2255.
local clock
local function micros()
  if not clock then
    local t = redis.call('TIME')
    clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  return clock
end

-- A whole number as all its digits: '%.0f' writes them all, where tostring and '..' round to 14.
local function digits(n)
  return string.format('%.0f', n)
end

-- Draws the next fencing token of a lock from its counter, a string key or, with `field`, a field
-- of a hash: the larger of the counter + 1 + `spare` and the server's clock in microseconds, and
-- the counter is set to it. Why the clock: a counter that a restart without persistence lost, or a
-- failover set back, would start again below tokens already handed out; the clock starts above
-- them, as long as it does not step back (nor lag the old master's by more than a failover takes)
-- and tokens do not run ahead of it: a lock is granted at most a million / (1 + spare) times a
-- second. Why `spare`: the exclusive lock leaves SPARE tokens after each grant's own, which its
-- client gives to the threads it hands the grant to without a request (dev.dlock.spi.SpareTokens);
-- a draw at the clock is spaced too, since max() keeps it at least counter + 1 + spare. The counter
-- keeps the grant's own token, not the last spare one, because acquire.lua's retry answers a
-- standing grant with the counter, and inspect.lua shows it. `last`, if given, is what a GET of the
-- counter answered already in this call (false if it is absent), so it is not read twice.
local SPARE = 15
local function drawToken(counter, field, spare, last)
  if last == nil then
    if field then
      last = redis.call('HGET', counter, field)
    else
      last = redis.call('GET', counter)
    end
  end
  local token = math.max((tonumber(last) or 0) + 1 + (spare or 0), micros())
  if field then
    redis.call('HSET', counter, field, digits(token))
  else
    redis.call('SET', counter, digits(token))
  end
  return token
end

-- The shapes of the keys dlock writes, by name: the type, then for a string the pattern its value
-- matches, for a hash whether only the fields 'permits' and 'token' may be there (sem-acquire.lua's
-- meta). A key that does not exist fits every shape. Ifs rather than a table of tables: the prelude
-- runs on every call of every script, and a table would be built each time for a rare error.
local function shapeOf(name)
  if name == 'lock' then
    return 'string', '^[-+@]%d+ .'      -- acquire.lua's '<state><ms> <owner>'
  elseif name == 'owner' then
    return 'string', '.:%d+$'           -- an owner, '<client id>:<sequence>'
  elseif name == 'counter' then
    return 'string', '^%d+$'            -- a fencing-token counter
  elseif name == 'meta' then
    return 'hash', nil, true
  elseif name == 'leases' then
    return 'hash'                       -- acquire.lua's waiting owner -> lease
  end
  return name
end

-- The rest of the prelude, below, is built by rest() on a call's first use of it. Why: a Lua
-- function is made anew on every call of a script, an allocation for the server to make and
-- collect, and the uncontended acquire and release use none of the rest; made on every call, it
-- cost them about 1.5 us a lock and unlock, on one CPU (the scripts taken in turn, raw).
local rest, built

-- Nil if `reply`, what a read of `key` by redis.pcall answered, shows the key absent or of the
-- named shape; else what it holds, in words. The read is GET for a string shape, and for another
-- a command of that type (a shape with fields needs misfit). Why: a script that reads the key
-- anyway judges that one read, where misfit would read it again.
local function misfitRead(key, reply, shape)
  local kind, pattern = shapeOf(shape)
  local wrongType = type(reply) == 'table' and reply.err ~= nil
  if not wrongType and (kind ~= 'string' or not reply or string.find(reply, pattern)) then
    return nil
  end
  return rest().found(key)
end

-- The error reply for the key at position `i` of KEYS, which holds `what` (words from found).
local function foreignAt(i, what)
  return redis.error_reply('DLOCKFOREIGN ' .. i .. ' ' .. what)
end

-- The rest: what a key holds in words (found), the shape checks of keys a script has not read
-- (foreign), and the queue's hand-over and wake-ups. Scripts call them as rest().foreign(...).
rest = function()
  if built then
    return built
  end
  -- What a key holds, in words, for an error: its type, and its size or the start of its value.
  local function found(key)
    local kind = redis.call('TYPE', key)['ok']
    if kind == 'string' then
      local length = redis.call('STRLEN', key)
      local start = string.gsub(redis.call('GETRANGE', key, 0, 23), '[^%w%p ]', '?')
      return string.format("a string of %d bytes '%s%s'", length, start, length > 24 and '...' or '')
    end
    local sizes = {hash = {'HLEN', 'field', 'fields'}, list = {'LLEN', 'element', 'elements'},
      set = {'SCARD', 'member', 'members'}, zset = {'ZCARD', 'member', 'members'},
      stream = {'XLEN', 'entry', 'entries'}}
    local size = sizes[kind]
    if size then
      local n = redis.call(size[1], key)
      return string.format('a %s of %d %s', kind, n, n == 1 and size[2] or size[3])
    end
    return 'a ' .. kind
  end

  -- True if the hash at `key` has at most the fields 'permits' and 'token', each a whole number.
  local function metaFits(key)
    if redis.call('HLEN', key) > 2 then
      return false
    end
    local all = redis.call('HGETALL', key)
    for i = 1, #all, 2 do
      if (all[i] ~= 'permits' and all[i] ~= 'token') or not string.find(all[i + 1], '^%d+$') then
        return false
      end
    end
    return true
  end

  -- Nil if `key` is absent or has the named shape; else what it holds, in words.
  local function misfit(key, shape)
    local kind, _, meta = shapeOf(shape)
    if kind == 'string' then
      return misfitRead(key, redis.pcall('GET', key), shape)
    end
    local held = redis.call('TYPE', key)['ok']
    if held == 'none' or held == kind and (not meta or metaFits(key)) then
      return nil
    end
    return found(key)
  end

  -- An error reply naming the first of KEYS that holds what dlock did not write there, or nil;
  -- `expected` names the shape of each key, in order, or is false for a key the script has judged
  -- already (misfitRead). Scripts call it before they write anything, as a script that fails halfway
  -- keeps what it wrote. The Java side (ForeignValue) reads the reply: 'DLOCKFOREIGN <position in
  -- KEYS> <what the key holds>'.
  local function foreign(expected)
    for i, shape in ipairs(expected) do
      local what = shape and misfit(KEYS[i], shape)
      if what then
        return foreignAt(i, what)
      end
    end
    return nil
  end

  -- The release scripts' hand-over: walks a queue from its oldest waiter, looking at `tries` waiters
  -- at most. `visit(waiter)` answers 'stop' (the walk ends), 'keep' (the waiter stays queued and the
  -- walk goes on to the next), 'granted' (the visit took it out of the queue, with its grant, and the
  -- walk goes on) or 'drop' (it lapsed, or nobody listens for it: `drop(waiter)` takes it out of the
  -- queue and of whatever else the script keeps about it, and the walk goes on).
  local function walkQueue(queue, tries, visit, drop)
    local at = 0
    for _ = 1, tries do
      local waiter = redis.call('ZRANGE', queue, at, at)[1]
      if not waiter then
        return
      end
      local verdict = visit(waiter)
      if verdict == 'stop' then
        return
      elseif verdict == 'keep' then
        at = at + 1
      elseif verdict ~= 'granted' then
        drop(waiter)
      end
    end
  end

  -- Offers a release's grant to a queued waiter ('<client>:<seq>'): draws the next token from
  -- `g.counter` (a field `g.field` of it, if set) and tells the waiter's client alone, with the message
  -- '<g.kind><seq> <token> <g.name>' on its channel (`g.kind` is '' for the exclusive lock, 'f', 'r',
  -- 'w' or 'p' for a fair, read, write or permit grant, so that the client passes on a grant nobody
  -- takes with the right script). Returns the token and how long the grant lasts untaken: the
  -- waiter timeout, or the lease the waiter recorded in `g.leases` when it queued if that is shorter
  -- (release.lua says why); or nil if its place in `g.alive` lapsed by `g.now` (server milliseconds;
  -- not checked when nil) or its client no longer listens. The caller writes the grant. `g.last`, if
  -- set, is what a GET of the counter answered already in this call; the first draw uses it up.
  local function offer(g, waiter)
    if g.now and tonumber(redis.call('ZSCORE', g.alive, waiter) or 0) <= g.now then
      return nil
    end
    local client, seq = string.match(waiter, '^(.*):(%d+)$')
    if not client then
      return nil
    end
    -- An owner queued by an older dlock has no lease recorded: the waiter timeout bounds its grant.
    local ms = math.min(g.waiterTimeout, tonumber(redis.call('HGET', g.leases, waiter)) or g.waiterTimeout)
    local token = drawToken(g.counter, g.field, g.kind == '' and SPARE or 0, g.last)
    g.last = nil
    local message = g.kind .. seq .. ' ' .. digits(token) .. ' ' .. g.name
    if redis.call(g.publish, g.channels .. client, message) == 0 then
      return nil
    end
    return token, ms
  end

  -- A fair, read, write or permit grant that a release pushed stays marked in the lock's leases hash,
  -- as '@<token>' under its owner, until its owner's own acquire takes it or its owner releases it:
  -- a 'pass' (the client found nobody waiting for it) frees it only while so marked. The mark lasts
  -- at least the waiter timeout, as long as the grant can stay untaken.
  local function markPushed(leases, owner, token, waiterTimeout)
    redis.call('HSET', leases, owner, '@' .. digits(token))
    if redis.call('PTTL', leases) < waiterTimeout then
      redis.call('PEXPIRE', leases, waiterTimeout)
    end
  end

  -- True if `owner`'s grant with `token` (digits) is a pushed one nobody took (see markPushed).
  local function pushedUntaken(leases, owner, token)
    return redis.call('HGET', leases, owner) == '@' .. token
  end

  -- Tells a queued waiter ('<client>:<seq>') through its client's channel that it may try again, with
  -- the message '*<seq> <name>': true if its place in `alive` lapses after `now` (server
  -- milliseconds) and its client listens. `publish` is PUBLISH or, where a cluster shards pub/sub,
  -- SPUBLISH.
  local function tell(alive, waiter, now, channels, publish, name)
    local lapses = tonumber(redis.call('ZSCORE', alive, waiter) or 0)
    local client, seq = string.match(waiter, '^(.*):(%d+)$')
    return lapses > now and client ~= nil
        and redis.call(publish, channels .. client, '*' .. seq .. ' ' .. name) > 0
  end

  built = {found = found, foreign = foreign, walkQueue = walkQueue, offer = offer,
    markPushed = markPushed, pushedUntaken = pushedUntaken, tell = tell}
  return built
end
