-- sliding_log.lua: core/limiter/sliding_log.cpp on Redis. State: a sorted set; each admitted
-- entry is member "<t_us>:<cost>" with score t_us (requests at the same µs share one entry,
-- costs added, as in the C++); member "u:<used>" with score -inf holds the running sum of the
-- live costs, updated by the same sequence of additions and subtractions as the C++ `used`,
-- so remaining is bit-identical. Body of a branch of ls_algorithm(name): returns eval, write.

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

local function eval(p, skey, t, cost)
  local w = p.window_us
  local reset, del = false, false
  local used, newest, expired = 0, nil, {}
  local last = redis.pcall('ZRANGE', skey, -1, -1, 'WITHSCORES')
  local meta = nil
  if last.err then
    reset, del = true, true  -- not a sorted set
  elseif #last > 0 then
    if last[2] ~= '-inf' then
      local e = entries(last, 1)
      if e == nil then reset = true else newest = e[1].t end
    end
  end
  local te = t  -- effective time: never before the newest entry (time going back)
  if not reset and newest ~= nil then
    if newest > t + w then reset = true elseif newest > t then te = newest end
  end
  if not reset and #last > 0 then
    -- The running sum, then the entries that left the window (t_i <= te − W), oldest first.
    local head = redis.call('ZRANGEBYSCORE', skey, '-inf', ls_int(te - w), 'WITHSCORES')
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
    used, newest, expired, te = p.limit, t, {}, t
  end
  -- live_at(): subtract the expired entries in order; an empty log is exactly 0.
  local live_used = used
  for i = 1, #expired do live_used = live_used - expired[i].cost end
  local all_gone = (newest == nil) or (#expired > 0 and expired[#expired].t == newest)
  if all_gone then live_used = 0 end
  if live_used < 0 then live_used = 0 end
  local free = p.limit - live_used
  if free < 0 then free = 0 end
  local function reset_after()
    if all_gone then return 0 end
    return (newest - t) * 1000 + p.window
  end
  local fix = nil
  if reset then fix = {reset = true, te = t, used = p.limit, del = del} end
  local d
  if not ls_valid_cost(cost) then
    d = ls_refusal('invalid_cost', p.limit, free, reset_after())
  elseif cost > p.limit then
    d = ls_refusal('cost_above_capacity', p.limit, free, reset_after())
  elseif live_used + cost <= p.limit then
    local rem = p.limit - (live_used + cost)
    if rem < 0 then rem = 0 end
    d = {allowed = true, limit = p.limit, remaining = rem, retry = 0,
         reset = (te - t) * 1000 + p.window, reason = 'allowed',
         commit = {te = te, used = live_used + cost, cost = cost, cutoff = te - w, meta = meta,
                   merge = (not all_gone and newest == te) and last[1] or nil,
                   merge_cost = (not all_gone and newest == te) and entries(last, 1)[1].cost or 0,
                   reset = reset, del = del}}
  else
    d = {allowed = false, limit = p.limit, remaining = free, reset = reset_after(),
         reason = 'exhausted'}
    -- retry_instant(): expire live entries oldest first until the cost fits.
    local live = {{t = t, cost = p.limit}}
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
      if uu + cost <= p.limit then retry = (live[i].t - t) * 1000 + p.window break end
    end
    d.retry = retry
  end
  d.fix = fix
  return d
end

local function write(p, skey, st, t, pad_ms)
  if st.del then redis.call('DEL', skey) end
  if st.reset then
    redis.call('DEL', skey)
    redis.call('ZADD', skey, '-inf', 'u:' .. ls_fmt(st.used), ls_int(st.te),
               ls_int(st.te) .. ':' .. ls_fmt(p.limit))
  else
    redis.call('ZREMRANGEBYSCORE', skey, '(-inf', ls_int(st.cutoff))
    if st.meta then redis.call('ZREM', skey, st.meta) end
    if st.merge then redis.call('ZREM', skey, st.merge) end
    redis.call('ZADD', skey, '-inf', 'u:' .. ls_fmt(st.used),
               ls_int(st.te), ls_int(st.te) .. ':' .. ls_fmt(st.merge_cost + st.cost))
  end
  -- Idle once the newest entry has left the window.
  redis.call('PEXPIRE', skey, ls_ttl_ms((st.te - t) * 1000 + p.window) + pad_ms)
end

return eval, write
