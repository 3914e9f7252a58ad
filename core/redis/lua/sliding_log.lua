-- sliding_log.lua: core/limiter/sliding_log.cpp on Redis. State: a sorted set; each admitted
-- entry is member "<t_us>:<cost>" with score t_us (requests at the same µs share one entry,
-- costs added, as in the C++); member "u:<used>" with score -inf holds the running sum of the
-- live costs, updated by the same sequence of additions and subtractions as the C++ `used`,
-- so remaining is bit-identical.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d) fills decision d (next state: d.a = entry time,
-- d.b = sum, d.c = entry cost, d.e = cutoff, d.f/d.g = members to replace), write stores it.

-- Parses "<t>:<cost>" members from a WITHSCORES reply into {t, cost} (nil when corrupt).
local function entries(reply, from)
  local out = {}
  for i = from, #reply, 2 do
    local c = ls_num(string.match(reply[i], '^%d+:(.+)$'))
    local t = ls_uint(reply[i + 1])
    if c == nil or c <= 0 or t == nil then return nil end
    out[#out + 1] = {t = t, cost = c, member = reply[i]}
  end
  return out
end

local function eval(p, skey, t, cost, d)
  local w, L = p.window_us, p.limit
  local reset = false
  d.del, d.fix, d.write = false, false, false
  local used, newest, newest_cost, expired, meta = 0, nil, 0, {}, false
  local last = redis.pcall('ZRANGE', skey, -1, -1, 'WITHSCORES')
  if last.err then
    reset, d.del = true, true  -- not a sorted set
  elseif #last > 0 and last[2] ~= '-inf' then
    local e = entries(last, 1)
    if e == nil then reset = true else newest, newest_cost = e[1].t, e[1].cost end
  end
  local te = t  -- effective time: never before the newest entry (time going back)
  if not reset and newest ~= nil then
    if newest > t + w then reset = true elseif newest > t then te = newest end
  end
  if not reset and #last > 0 then
    -- The running sum, then the entries that left the window (t_i <= te − W), oldest first.
    local head = redis.call('ZRANGEBYSCORE', skey, '-inf', te - w, 'WITHSCORES')
    if #head < 2 or head[2] ~= '-inf' then
      reset = true
    else
      meta = head[1]
      used = ls_num(string.match(head[1], '^u:(.+)$'))
      expired = entries(head, 3)
      if used == nil or expired == nil then reset = true end
    end
  end
  if reset then
    -- Conservative reset: the window is full as of now.
    used, newest, expired, te = L, t, {}, t
    d.fix, d.write, d.a, d.b = true, 'fix', t, L
  end
  -- live_at(): subtract the expired entries in order; an empty log is exactly 0.
  local live_used = used
  for i = 1, #expired do live_used = live_used - expired[i].cost end
  local all_gone = (newest == nil) or (#expired > 0 and expired[#expired].t == newest)
  if all_gone then live_used = 0 end
  if live_used < 0 then live_used = 0 end
  local free = L - live_used
  if free < 0 then free = 0 end
  local reset_after = 0
  if not all_gone then reset_after = (newest - t) * 1000 + p.window end
  if not ls_valid_cost(cost) then
    ls_set(d, false, L, free, nil, reset_after, 'invalid_cost')
  elseif cost > L then
    ls_set(d, false, L, free, nil, reset_after, 'cost_above_capacity')
  elseif live_used + cost <= L then
    local rem = L - (live_used + cost)
    if rem < 0 then rem = 0 end
    ls_set(d, true, L, rem, 0, (te - t) * 1000 + p.window, 'allowed')
    -- Next state: drop expired entries, sum = live + cost, the entry at te (merged into the
    -- newest when it is at te and still live).
    local merge = (not all_gone) and newest == te
    d.write, d.a, d.b, d.e, d.f = 'commit', te, live_used + cost, te - w, meta
    d.g = merge and last[1] or false
    d.c = merge and (newest_cost + cost) or cost
  else
    -- retry_instant(): expire live entries oldest first until the cost fits.
    local live = {{t = t, cost = L}}
    if not reset then
      live = entries(redis.call('ZRANGEBYSCORE', skey, '(' .. ls_int(te - w), '+inf',
                                'WITHSCORES'), 1) or {}
    end
    local u = live_used
    local retry = (newest - t) * 1000 + p.window
    for i = 1, #live do
      u = u - live[i].cost
      if i == #live then u = 0 end
      local uu = u
      if uu < 0 then uu = 0 end
      if uu + cost <= L then retry = (live[i].t - t) * 1000 + p.window break end
    end
    ls_set(d, false, L, free, retry, reset_after, 'exhausted')
  end
end

local function write(p, skey, d, t, pad_ms)
  if d.del then redis.call('DEL', skey) end
  if d.write == 'fix' then
    redis.call('DEL', skey)
    redis.call('ZADD', skey, '-inf', 'u:' .. ls_fmt(d.b), d.a, ls_int(d.a) .. ':' .. ls_fmt(p.limit))
  else
    redis.call('ZREMRANGEBYSCORE', skey, '(-inf', d.e)
    if d.f then redis.call('ZREM', skey, d.f) end
    if d.g then redis.call('ZREM', skey, d.g) end
    redis.call('ZADD', skey, '-inf', 'u:' .. ls_fmt(d.b), d.a, ls_int(d.a) .. ':' .. ls_fmt(d.c))
  end
  -- Idle once the newest entry has left the window.
  redis.call('PEXPIRE', skey, ls_int(ls_ttl_ms((d.a - t) * 1000 + p.window) + pad_ms))
end

return eval, write
