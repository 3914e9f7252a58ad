-- fixed_window.lua: core/limiter/fixed_window.cpp on Redis. State: hash {ws, count, w}: ws the
-- window's start (µs, a multiple of w), count the cost admitted in it (%.17g), w the window
-- length (µs) it was written under. Body of a branch of ls_algorithm(name): returns eval, write.

local function roll(w, s, t)
  if t < s.ws then return s end
  local start = t - math.fmod(t, w)
  if start == s.ws then return s end
  return {ws = start, count = 0}
end

local function reset_after(p, r, t)
  if r.count <= 0 then return 0 end
  local from = t
  if r.ws > from then from = r.ws end
  return (r.ws - from) * 1000 + p.window
end

local function eval(p, skey, t, cost)
  local w, L = p.window_us, p.limit
  local s = {ws = t - math.fmod(t, w), count = 0}
  local reset, del = false, false
  local raw = redis.pcall('HMGET', skey, 'ws', 'count', 'w')
  if raw.err then
    reset, del = true, true
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
  if reset then s = {ws = t - math.fmod(t, w), count = L} end
  local fix = nil
  if reset then fix = {ws = s.ws, count = L, del = del} end
  local r = roll(w, s, t)
  local free = L - r.count
  if free < 0 then free = 0 end
  local d
  if not ls_valid_cost(cost) then
    d = ls_refusal('invalid_cost', L, free, reset_after(p, r, t))
  elseif cost > L then
    d = ls_refusal('cost_above_capacity', L, free, reset_after(p, r, t))
  elseif r.count + cost <= L then
    local after = {ws = r.ws, count = r.count + cost, del = del}
    local rem = L - after.count
    if rem < 0 then rem = 0 end
    d = {allowed = true, limit = L, remaining = rem, retry = 0, reset = reset_after(p, after, t),
         reason = 'allowed', commit = after}
  else
    d = {allowed = false, limit = L, remaining = free, reset = reset_after(p, r, t),
         reason = 'exhausted'}
    d.retry = d.reset  -- the next window starts empty and cost <= L
  end
  d.fix = fix
  return d
end

local function write(p, skey, st, t, pad_ms)
  if st.del then redis.call('DEL', skey) end
  redis.call('HSET', skey, 'ws', st.ws, 'count', st.count, 'w', p.window_us)
  redis.call('PEXPIRE', skey, ls_ttl_ms(reset_after(p, st, t)) + pad_ms)
end

return eval, write
