-- sliding_counter.lua: core/limiter/sliding_counter.cpp on Redis. State: hash {ws, prev, curr,
-- w}: ws the current window's start (µs, a multiple of w), prev/curr the cost admitted in the
-- previous/current window, w the window length (µs) the state was written under.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d) fills decision d (next state: d.a = ws, d.b = prev,
-- d.c = curr), write(p, skey, d, t, pad_ms) stores it.

-- roll(): the state at t with the windows moved forward (t before ws counts as ws).
local function roll(w, s, t)
  if t < s.ws then return s end
  local start = t - math.fmod(t, w)
  if start == s.ws then return s end
  if start - s.ws == w then return {ws = start, prev = s.curr, curr = 0} end
  return {ws = start, prev = 0, curr = 0}
end

-- prev·(W − elapsed)/W + curr, elapsed clamped to [0, W] (ns).
local function estimate(p, r, t)
  local elapsed = (t - r.ws) * 1000
  if elapsed < 0 then elapsed = 0 elseif elapsed > p.window then elapsed = p.window end
  return r.prev * ((p.window - elapsed) / p.window) + r.curr
end

local function reset_after(p, r, t)
  local from = t
  if r.ws > from then from = r.ws end
  if r.curr > 0 then return (r.ws - from) * 1000 + 2 * p.window end
  if r.prev > 0 then return (r.ws - from) * 1000 + p.window end
  return 0
end

local function eval(p, skey, t, cost, d)
  local w, L = p.window_us, p.limit
  local s = {ws = t - math.fmod(t, w), prev = 0, curr = 0}
  local reset = false
  d.del, d.fix, d.write = false, false, false
  local raw = redis.pcall('HMGET', skey, 'ws', 'prev', 'curr', 'w')
  if raw.err then
    reset, d.del = true, true
  elseif raw[1] or raw[2] or raw[3] or raw[4] then
    local ws, prev, curr, ow = ls_uint(raw[1]), ls_num(raw[2]), ls_num(raw[3]), ls_uint(raw[4])
    if ws == nil or prev == nil or curr == nil or ow == nil or ow < 1000 or prev < 0 or
       curr < 0 or math.fmod(ws, ow) ~= 0 or ws > t + ow then
      reset = true
    else
      s = {ws = ws, prev = prev, curr = curr}
      if ow ~= w then
        -- The window length changed: roll under the old one, re-align to the new (as
        -- SlidingCounter::reconfigure).
        local r = roll(ow, s, t)
        local from = t
        if r.ws > from then from = r.ws end
        s = {ws = from - math.fmod(from, w), prev = r.prev, curr = r.curr}
      end
      -- A lowered limit: counts above it are capped (as reconfigure); no-op otherwise.
      if s.prev > L then s.prev = L end
      if s.curr > L then s.curr = L end
    end
  end
  if reset then
    s = {ws = t - math.fmod(t, w), prev = 0, curr = L}
    d.fix, d.write, d.a, d.b, d.c = true, 'fix', s.ws, 0, L
  end
  local r = roll(w, s, t)
  local used = estimate(p, r, t)
  local free = L - used
  if free < 0 then free = 0 end
  if not ls_valid_cost(cost) then
    ls_set(d, false, L, free, nil, reset_after(p, r, t), 'invalid_cost')
  elseif cost > L then
    ls_set(d, false, L, free, nil, reset_after(p, r, t), 'cost_above_capacity')
  elseif used + cost <= L then
    local rem = L - used - cost
    if rem < 0 then rem = 0 end
    d.write, d.a, d.b, d.c = 'commit', r.ws, r.prev, r.curr + cost
    ls_set(d, true, L, rem, 0, reset_after(p, {ws = r.ws, prev = r.prev, curr = r.curr + cost}, t), 'allowed')
  else
    -- Search relative to r.ws in ns, with the same arithmetic as estimate(roll(s, u)).
    local W = p.window
    local base = (r.ws - s.ws) * 1000  -- r.ws − s.ws, ns
    local t_rel = (t - r.ws) * 1000
    local from = t_rel
    if from < 0 then from = 0 end
    local guess = 2 * W
    if L - r.curr - cost >= 0 and r.prev > 0 then
      guess = ls_ceil_ns(W - (L - r.curr - cost) * W / r.prev)
    elseif r.curr > 0 then
      guess = W + ls_ceil_ns(W - (L - cost) * W / r.curr)
    end
    local when = ls_earliest(from, guess, 2 * W, function(u)
      local k = u - math.fmod(u, W)
      local diff = base + k
      local prev, curr = 0, 0
      if diff == 0 then prev, curr = s.prev, s.curr elseif diff == W then prev = s.curr end
      local elapsed = u - k
      if elapsed > W then elapsed = W end
      return prev * ((W - elapsed) / W) + curr + cost <= L
    end)
    ls_set(d, false, L, free, (when or 2 * W) - t_rel, reset_after(p, r, t), 'exhausted')
  end
end

local function write(p, skey, d, t, pad_ms)
  if d.del then redis.call('DEL', skey) end
  redis.call('HSET', skey, 'ws', ls_int(d.a), 'prev', d.b, 'curr', d.c, 'w', ls_int(p.window_us))
  redis.call('PEXPIRE', skey, ls_int(ls_ttl_ms(reset_after(p, {ws = d.a, prev = d.b, curr = d.c}, t)) + pad_ms))
end

return eval, write
