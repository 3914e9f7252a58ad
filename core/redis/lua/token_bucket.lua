-- token_bucket.lua: core/limiter/token_bucket.cpp on Redis. State: hash {tokens, ts}, tokens a
-- double (negative: a debt left by settle.lua), ts the µs instant tokens were computed at. Times are µs, durations ns.
-- Pasted into decide.lua (at its algorithms marker), where the final `return eval, write` becomes an
-- assignment: eval(p, skey, t, cost, d) fills decision d (next state: d.a = tokens, d.b = ts),
-- write(p, skey, d, t, pad_ms) stores it.

local function eval(p, skey, t, cost, d)
  local C, npu = p.capacity, p.period / p.amount  -- ns per token (time_math::ns_per_unit)
  local tokens, last, reset = C, t, false
  d.del, d.fix, d.write = false, false, false
  local raw = redis.pcall('HMGET', skey, 'tokens', 'ts')
  if raw.err then
    reset, d.del = true, true  -- not a hash
  elseif raw[1] or raw[2] then
    tokens, last = ls_num(raw[1]), ls_uint(raw[2])
    -- Corrupt (below the deepest debt settle.lua leaves: one hour of refill), or further ahead
    -- than one whole refill: start from an empty bucket now.
    if tokens == nil or tokens < -(p.amount * 3600000000000 / p.period) or last == nil or
       (last - t) * 1000 > C * npu then
      reset = true
    end
  end
  if reset then
    tokens, last = 0, t
    d.fix, d.write, d.a, d.b = true, 'fix', 0, t
  end
  -- tokens(t) = min(C, tokens + r·Δt), Δt >= 0, computed as Δt_ns·amount/period like the C++.
  local level = tokens
  if t > last then level = tokens + ((t - last) * 1000) * p.amount / p.period end
  if not (level < C) then level = C end
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

local function write(p, skey, d, t, pad_ms)
  if d.del then redis.call('DEL', skey) end
  redis.call('HSET', skey, 'tokens', d.a, 'ts', ls_int(d.b))  -- the double: Redis prints %.17g
  -- Idle (indistinguishable from a fresh bucket) once full again.
  local full_ns = (d.b - t) * 1000 + ls_ceil_ns((p.capacity - d.a) * (p.period / p.amount))
  redis.call('PEXPIRE', skey, ls_int(ls_ttl_ms(full_ns) + pad_ms))
end

return eval, write
