-- token_bucket.lua: core/limiter/token_bucket.cpp on Redis. State: a string of IEEE-754 doubles
-- little-endian: format 2, 24 bytes (struct '<ddd'): tokens (negative: a debt left by
-- settlement), ts, the µs instant tokens were computed at, and exp, the ms instant the key's TTL
-- was last set to end at (ls_tb_store: a write keeps the TTL when it already lasts long enough);
-- format 1, 16 bytes ('<dd', exp unknown: 0). Both are read; a write makes format 2 only where
-- the rule's stamp allows it (p.f2, docs/redis-state.md: deciders of the version before read
-- format 1 only), format 1 otherwise. Exact both ways, and about six times cheaper to write and
-- read in Redis's Lua than "%.17g" text. Before issue 18 the state was a hash {tokens, ts}
-- (ls_legacy_tb, where one may still exist); the next write replaces it with a string. Times
-- are µs, durations ns.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d, raw, legacy) fills decision d from the state `raw` the
-- caller read (false: none; legacy: a missing string may be an old hash) (next state: d.a =
-- tokens, d.b = ts; d.x = the key's exp, 0 when unknown), write(p, skey, d, t, pad_ms, hold)
-- stores it (hold: only encodes it, with the exp the key still has) and returns the string.

local function eval(p, skey, t, cost, d, raw, legacy)
  local C, npu = p.capacity, p.period / p.amount  -- ns per token (time_math::ns_per_unit)
  local tokens, last, reset, x = C, t, false, 0
  d.fix, d.write = false, false
  if raw then
    local len = #raw
    if len == 24 then
      tokens, last, x = struct.unpack('<ddd', raw)
    elseif len == 16 then
      tokens, last = struct.unpack('<dd', raw)  -- format 1: the key's TTL is unknown (x = 0)
    end
    -- Corrupt (not 24 or 16 bytes, not finite, below the deepest debt settlement leaves: one
    -- hour of refill, a fractional or negative ts or exp), or further ahead than one whole
    -- refill: start from an empty bucket now.
    if (len ~= 24 and len ~= 16) or tokens ~= tokens or tokens == math.huge or
       tokens < -(p.amount * 3600000000000 / p.period) or not (last >= 0) or
       last % 1 ~= 0 or last > 9007199254740992 or (last - t) * 1000 > C * npu or
       not (x >= 0) or x % 1 ~= 0 then
      reset, x = true, 0
    end
  elseif legacy then
    local f = ls_legacy_tb(skey)
    if f == 'reset' then
      reset = true
    elseif f then
      tokens, last = ls_num(f[1]), ls_uint(f[2])
      if tokens == nil or tokens < -(p.amount * 3600000000000 / p.period) or last == nil or
         (last - t) * 1000 > C * npu then
        reset = true
      end
    end
  end
  d.x = x
  if reset then
    tokens, last = 0, t
    d.fix, d.write, d.a, d.b = true, 'fix', 0, t
  end
  -- tokens(t) = min(C, tokens + r·Δt), Δt >= 0, computed as Δt_ns·amount/period like the C++.
  local level = tokens
  if t > last then level = tokens + ((t - last) * 1000) * p.amount / p.period end
  if not (level < C) then level = C end
  -- A settlement riding on this decision (decide.lua's settle argument): the level now minus
  -- the delta, within [-debt, C], stored even when the decision refuses (TokenBucket::settle).
  local delta = d.settle
  if delta ~= 0 then
    local debt = p.amount * 3600000000000 / p.period  -- TokenBucket::max_debt, the same expression
    level = level - delta
    if level < -debt then level = -debt end
    if level > C then level = C end
    tokens, last = level, t > last and t or last
    d.write, d.a, d.b, d.c, d.e = 'fix', level, last, level, last
  end
  if not ls_valid_cost(cost) then
    ls_set(d, false, C, level, nil, ls_ceil_ns((C - level) * npu), 'invalid_cost')
  elseif cost > C then
    ls_set(d, false, C, level, nil, ls_ceil_ns((C - level) * npu), 'cost_above_capacity')
  elseif level >= cost then
    local rem = level - cost
    ls_set(d, true, C, rem, 0, ls_ceil_ns((C - rem) * npu), 'allowed')
    d.write, d.a, d.b = 'commit', rem, last
    if t > last then d.b = t end
  else
    -- Exact: the earliest ns at which the same arithmetic admits `cost` (relative to t).
    local rel, amount, period = (t - last) * 1000, p.amount, p.period
    local when = ls_earliest(0, ls_ceil_ns((cost - level) * npu), LS_FAR_NS, function(u)
      local dt = rel + u
      if dt < 0 then dt = 0 end
      local l = tokens + dt * amount / period
      if l > C then l = C end
      return l >= cost
    end)
    ls_set(d, false, C, level, when or LS_FAR_NS, ls_ceil_ns((C - level) * npu), 'exhausted')
  end
end

local function write(p, skey, d, t, pad_ms, hold)
  if hold then return struct.pack('<ddd', d.a, d.b, d.x) end
  -- Idle (indistinguishable from a fresh bucket) once full again. SET replaces a key of any
  -- type, the old hash included (a reset, which sets one, has d.x = 0: a new TTL).
  local full_ns = (d.b - t) * 1000 + ls_ceil_ns((p.capacity - d.a) * (p.period / p.amount))
  return ls_tb_store(skey, d.a, d.b, d.x, t, ls_ttl_ms(full_ns) + pad_ms, p.f2)
end

return eval, write
