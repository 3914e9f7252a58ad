-- gcra.lua: core/limiter/gcra.cpp on Redis. State: a string holding the theoretical arrival
-- time (TAT) in integer ns since the epoch (as redis-cell stores it). It is handled as µs plus
-- a 0..999 ns remainder, so every difference stays exact in doubles.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d, raw) fills decision d from the state `raw` the caller
-- read (MGET: false when absent or not a string) (next state: d.a = TAT − now, ns),
-- write(p, skey, d, t, pad_ms, hold) stores it (hold: only encodes it) and returns the string.

-- Cost units free with a backlog of b ns: clamp(max(0, C·T − b) / T, 0, C).
local function level(p, t_ns, limit_ns, b)
  local free = limit_ns - b
  if free < 0 then free = 0 end
  local l = free / t_ns
  if l < 0 then return 0 end
  if p.capacity < l then return p.capacity end
  return l
end

local function eval(p, skey, t, cost, d, raw)
  local C = p.capacity
  local t_ns, limit_ns = p.c, p.e  -- T and C·T, kept in the limit (a kept config reuses them)
  if t_ns == 0 then
    t_ns = ls_round_ns(p.period / p.amount)  -- emission interval T
    if t_ns < 1 then t_ns = 1 end
    limit_ns = ls_round_ns(C * t_ns)
    if limit_ns < 1 then limit_ns = 1 end
    p.c, p.e = t_ns, limit_ns
  end
  local valid = ls_valid_cost(cost)
  local cost_ns = t_ns
  if not (valid and cost == 1) then
    cost_ns = ls_round_ns((valid and cost or 1) * t_ns)
    if cost_ns < 1 then cost_ns = 1 end
  end
  local b, reset = 0, false  -- backlog: max(0, tat − now), ns
  d.fix, d.write = false, false
  if raw then
    local tat_us, rem
    if #raw <= 19 and string.match(raw, '^%d+$') then
      if #raw <= 3 then tat_us, rem = 0, tonumber(raw)
      else tat_us, rem = tonumber(string.sub(raw, 1, -4)), tonumber(string.sub(raw, -3)) end
    end
    if tat_us == nil then
      reset = true
    else
      b = (tat_us - t) * 1000 + rem
      if b < 0 then b = 0 end
      -- More than C·T ahead cannot come from these parameters (a lowered capacity, a clock
      -- step back, a corrupt value): treat it as an empty bucket now.
      if b > limit_ns then reset = true end
    end
  end
  if reset then
    b = limit_ns
    d.fix, d.write, d.a = true, 'fix', limit_ns
  end
  if not valid then
    ls_set(d, false, C, level(p, t_ns, limit_ns, b), nil, b, 'invalid_cost')
  elseif cost > C then
    ls_set(d, false, C, level(p, t_ns, limit_ns, b), nil, b, 'cost_above_capacity')
  elseif b + cost_ns <= limit_ns then
    ls_set(d, true, C, level(p, t_ns, limit_ns, b + cost_ns), 0, b + cost_ns, 'allowed')
    d.write, d.a = 'commit', b + cost_ns
  else
    -- Admitted once tat − u + c·T <= C·T.
    ls_set(d, false, C, level(p, t_ns, limit_ns, b), b + cost_ns - limit_ns, b, 'exhausted')
  end
end

-- Stores tat = now + d.a (ns); the key is idle once tat has passed.
local function write(p, skey, d, t, pad_ms, hold)
  local rem = d.a % 1000  -- d.a >= 0: math.fmod's result, without a call
  local tat_us = t + (d.a - rem) / 1000
  -- The decimal ns text, from two exact integers (tat_us < 2^53, so %d is exact).
  local v = string.format('%d%03d', tat_us, rem)
  if hold then return v end
  -- SET replaces a key of any type.
  redis.call('SET', skey, v, 'PX', ls_ttl_ms(d.a) + pad_ms)  -- a number: Redis prints it in C
  return v
end

return eval, write
