-- gcra.lua: core/limiter/gcra.cpp on Redis. State: the theoretical arrival time (TAT), handled
-- as µs plus a 0..999 ns remainder, so every difference stays exact in doubles. Two forms, both
-- read: the decimal text of the TAT in integer ns since the epoch (as redis-cell stores it; what
-- every version writes until its rule is switched to state format 3), and format 3's 24 bytes
-- (struct '<ddd', issue 18): tat_us, rem (ns) and exp, the ms instant the key's TTL was last set
-- to end at, so a write keeps the TTL while it lasts (ls_tb_store, as the token bucket's format 2
-- does; docs/redis-state.md). A write makes format 3 only where the rule's stamp allows it (p.f3).
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d, raw) fills decision d from the state `raw` the caller
-- read (MGET: false when absent or not a string) (next state: d.a = TAT − now, ns; d.x = the
-- key's exp, 0 when unknown), write(p, skey, d, t, pad_ms, hold) stores it (hold: only encodes
-- it, in format 3 with the exp the key still has) and returns the string.

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
  if p.c == 0 then ls_gcra_derive(p) end
  local t_ns, limit_ns = p.c, p.e  -- T and C·T, kept in the limit (a kept config reuses them)
  local valid = ls_valid_cost(cost)
  local cost_ns = t_ns
  if not (valid and cost == 1) then
    cost_ns = ls_round_ns((valid and cost or 1) * t_ns)
    if cost_ns < 1 then cost_ns = 1 end
  end
  local b, reset, x = 0, false, 0  -- backlog: max(0, tat − now), ns
  d.fix, d.write = false, false
  if raw then
    local tat_us, rem
    local len = #raw
    if len == 24 then
      -- Format 3; corrupt unless tat_us and exp are integers >= 0 (tat_us below 2^53) and rem
      -- one in [0, 999] (NaN fails every comparison).
      tat_us, rem, x = struct.unpack('<ddd', raw)
      if not (tat_us >= 0 and tat_us <= 9007199254740992 and tat_us % 1 == 0 and rem >= 0 and rem < 1000 and
              rem % 1 == 0 and x >= 0 and x % 1 == 0) then
        tat_us = nil
      end
    elseif len <= 19 and string.match(raw, '^%d+$') then
      if len <= 3 then tat_us, rem = 0, tonumber(raw)
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
    b, x = limit_ns, 0
    d.fix, d.write, d.a = true, 'fix', limit_ns
  end
  d.x = x
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
  if hold then return struct.pack('<ddd', tat_us, rem, d.x) end
  if p.f3 then return ls_tb_store(skey, tat_us, rem, d.x, t, ls_ttl_ms(d.a) + pad_ms, true) end
  -- The decimal ns text, from two exact integers (tat_us < 2^53, so %d is exact).
  local v = string.format('%d%03d', tat_us, rem)
  -- SET replaces a key of any type.
  redis.call('SET', skey, v, 'PX', ls_ttl_ms(d.a) + pad_ms)  -- a number: Redis prints it in C
  return v
end

return eval, write
