-- fixed_window.lua: core/limiter/fixed_window.cpp on Redis. State: hash {ws, count, w}: ws the
-- window's start (µs, a multiple of w), count the cost admitted in it, w the window length (µs)
-- it was written under.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d) fills decision d (next state: d.a = ws, d.b = count),
-- write(p, skey, d, t, pad_ms) stores it.

local function roll(w, s, t)
  if t < s.ws then return s end
  local start = t - math.fmod(t, w)
  if start == s.ws then return s end
  return {ws = start, count = 0}
end

-- Time until the window holding a non-zero count is over, ns.
local function reset_after(p, ws, count, t)
  if count <= 0 then return 0 end
  local from = t
  if ws > from then from = ws end
  return (ws - from) * 1000 + p.window
end

local function eval(p, skey, t, cost, d)
  local w, L = p.window_us, p.limit
  local s = {ws = t - math.fmod(t, w), count = 0}
  local reset = false
  d.del, d.fix, d.write = false, false, false
  local raw = redis.pcall('HMGET', skey, 'ws', 'count', 'w')
  if raw.err then
    reset, d.del = true, true
  elseif raw[1] or raw[2] or raw[3] then
    local ws, count, ow = ls_uint(raw[1]), ls_num(raw[2]), ls_uint(raw[3])
    if ws == nil or count == nil or ow == nil or ow < 1000 or count < 0 or
       math.fmod(ws, ow) ~= 0 or ws > t + ow then
      reset = true
    else
      s = {ws = ws, count = count}
      if ow ~= w then
        -- The window length changed: keep the current window's count, re-align (as
        -- FixedWindow::reconfigure).
        local r = roll(ow, s, t)
        local from = t
        if r.ws > from then from = r.ws end
        s = {ws = from - math.fmod(from, w), count = r.count}
      end
      if s.count > L then s.count = L end  -- a lowered limit (as reconfigure)
    end
  end
  if reset then
    s = {ws = t - math.fmod(t, w), count = L}
    d.fix, d.write, d.a, d.b = true, 'fix', s.ws, L
  end
  local r = roll(w, s, t)
  local free = L - r.count
  if free < 0 then free = 0 end
  if not ls_valid_cost(cost) then
    ls_set(d, false, L, free, nil, reset_after(p, r.ws, r.count, t), 'invalid_cost')
  elseif cost > L then
    ls_set(d, false, L, free, nil, reset_after(p, r.ws, r.count, t), 'cost_above_capacity')
  elseif r.count + cost <= L then
    local count = r.count + cost
    local rem = L - count
    if rem < 0 then rem = 0 end
    ls_set(d, true, L, rem, 0, reset_after(p, r.ws, count, t), 'allowed')
    d.write, d.a, d.b = 'commit', r.ws, count
  else
    -- The next window starts empty and cost <= L.
    local ra = reset_after(p, r.ws, r.count, t)
    ls_set(d, false, L, free, ra, ra, 'exhausted')
  end
end

local function write(p, skey, d, t, pad_ms)
  if d.del then redis.call('DEL', skey) end
  redis.call('HSET', skey, 'ws', ls_int(d.a), 'count', d.b, 'w', ls_int(p.window_us))
  redis.call('PEXPIRE', skey, ls_int(ls_ttl_ms(reset_after(p, d.a, d.b, t)) + pad_ms))
end

return eval, write
