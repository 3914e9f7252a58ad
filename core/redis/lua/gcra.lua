-- gcra.lua: core/limiter/gcra.cpp on Redis. State: a string holding the theoretical arrival
-- time (TAT) in integer ns since the epoch (as redis-cell stores it). It is handled as µs plus
-- a 0..999 ns remainder, so every difference stays exact in doubles.
-- Body of a branch of ls_algorithm(name): returns eval and write.

local function level(p, t_ns, limit_ns, backlog)
  local free = limit_ns - backlog
  if free < 0 then free = 0 end
  local l = free / t_ns
  if l < 0 then return 0 end
  if p.capacity < l then return p.capacity end
  return l
end

local function eval(p, skey, t, cost)
  local t_ns = ls_round_ns(p.period / p.amount)  -- emission interval T
  if t_ns < 1 then t_ns = 1 end
  local valid = ls_valid_cost(cost)
  local cost_ns = ls_round_ns((valid and cost or 1) * t_ns)
  if cost_ns < 1 then cost_ns = 1 end
  local limit_ns = ls_round_ns(p.capacity * t_ns)
  if limit_ns < 1 then limit_ns = 1 end
  local b, reset, del = 0, false, false  -- backlog: max(0, tat - now), ns
  local raw = redis.pcall('GET', skey)
  if type(raw) == 'table' and raw.err then
    reset, del = true, true  -- not a string
  elseif raw then
    local tat_us, rem
    if string.match(raw, '^%d+$') and #raw <= 19 then
      if #raw <= 3 then tat_us, rem = 0, tonumber(raw)
      else tat_us, rem = tonumber(string.sub(raw, 1, -4)), tonumber(string.sub(raw, -3)) end
    end
    if tat_us == nil then
      reset = true
    else
      b = (tat_us - t) * 1000 + rem
      if b < 0 then b = 0 end
      -- More than C·T ahead cannot come from these parameters (a lowered capacity, a clock
      -- jump, a corrupt value): treat it as an empty bucket now.
      if b > limit_ns then reset = true end
    end
  end
  if reset then b = limit_ns end
  local fix = nil
  if reset then fix = {rel = limit_ns, del = del} end
  local d
  if not valid or cost > p.capacity then
    d = ls_refusal(valid and 'cost_above_capacity' or 'invalid_cost', p.capacity,
                   level(p, t_ns, limit_ns, b), b)
  elseif b + cost_ns <= limit_ns then
    d = {allowed = true, limit = p.capacity, remaining = level(p, t_ns, limit_ns, b + cost_ns),
         retry = 0, reset = b + cost_ns, reason = 'allowed', commit = {rel = b + cost_ns, del = del}}
  else
    d = {allowed = false, limit = p.capacity, remaining = level(p, t_ns, limit_ns, b),
         reset = b, reason = 'exhausted', retry = b + cost_ns - limit_ns}
  end
  d.fix = fix
  return d
end

-- Stores tat = now + st.rel (ns); the key is idle once tat has passed.
local function write(p, skey, st, t, pad_ms)
  local rem = math.fmod(st.rel, 1000)
  local tat_us = t + (st.rel - rem) / 1000
  -- The decimal ns text from two exact integers (string.format is slow in Redis's Lua):
  -- whole seconds, then µs-within-second·1000 + rem padded to 9 digits.
  local sec_rem = math.fmod(tat_us, 1000000)
  local low = tostring(sec_rem * 1000 + rem)
  local v = tostring((tat_us - sec_rem) / 1000000) .. string.sub('000000000', #low + 1) .. low
  if st.del then redis.call('DEL', skey) end
  redis.call('SET', skey, v, 'PX', ls_ttl_ms(st.rel) + pad_ms)
end

return eval, write
