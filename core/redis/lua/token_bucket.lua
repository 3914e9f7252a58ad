-- token_bucket.lua: core/limiter/token_bucket.cpp on Redis. State: hash {tokens, ts}, tokens a
-- double (%.17g), ts the µs instant tokens were computed at. Times are µs, durations ns.
-- Body of a branch of ls_algorithm(name): returns eval(p, skey, t, cost) -> decision and
-- write(p, skey, st, t, pad_ms).

-- tokens(t) = min(C, tokens + r·Δt), Δt >= 0, computed as Δt_ns·amount/period like the C++.
local function level_at(p, tokens, last, t)
  local dt = 0
  if t > last then dt = (t - last) * 1000 end
  local l = tokens + dt * p.amount / p.period
  if l < p.capacity then return l end
  return p.capacity
end

local function eval(p, skey, t, cost)
  local npu = p.period / p.amount  -- ns per token (time_math::ns_per_unit)
  local tokens, last, reset, del = p.capacity, t, false, false
  local raw = redis.pcall('HMGET', skey, 'tokens', 'ts')
  if raw.err then
    reset, del = true, true  -- not a hash
  elseif raw[1] or raw[2] then
    tokens, last = ls_num(raw[1]), ls_uint(raw[2])
    -- Corrupt, or further ahead than one whole refill: start from an empty bucket now.
    if tokens == nil or tokens < 0 or last == nil or (last - t) * 1000 > p.capacity * npu then
      reset = true
    end
  end
  if reset then tokens, last = 0, t end
  local level = level_at(p, tokens, last, t)
  local function to_full(l) return ls_ceil_ns((p.capacity - l) * npu) end
  local fix = nil
  if reset then fix = {tokens = 0, last = t, del = del} end
  local d
  if not ls_valid_cost(cost) then
    d = ls_refusal('invalid_cost', p.capacity, level, to_full(level))
  elseif cost > p.capacity then
    d = ls_refusal('cost_above_capacity', p.capacity, level, to_full(level))
  elseif level >= cost then
    local rem = level - cost
    local nl = last
    if t > nl then nl = t end
    d = {allowed = true, limit = p.capacity, remaining = rem, retry = 0, reset = to_full(rem),
         reason = 'allowed', commit = {tokens = rem, last = nl, del = del}}
  else
    d = {allowed = false, limit = p.capacity, remaining = level, reset = to_full(level),
         reason = 'exhausted'}
    -- Exact: the earliest ns at which the same arithmetic admits `cost` (relative to t).
    local rel = (t - last) * 1000
    local when = ls_earliest(0, ls_ceil_ns((cost - level) * npu), LS_FAR_NS, function(u)
      local dt = rel + u
      if dt < 0 then dt = 0 end
      local l = tokens + dt * p.amount / p.period
      if l > p.capacity then l = p.capacity end
      return l >= cost
    end)
    d.retry = when or LS_FAR_NS
  end
  d.fix = fix
  return d
end

local function write(p, skey, st, t, pad_ms)
  if st.del then redis.call('DEL', skey) end
  redis.call('HSET', skey, 'tokens', st.tokens, 'ts', st.last)  -- numbers: Redis prints %.17g
  -- Idle (indistinguishable from a fresh bucket) once full again.
  local full_ns = (st.last - t) * 1000 + ls_ceil_ns((p.capacity - st.tokens) * (p.period / p.amount))
  redis.call('PEXPIRE', skey, ls_ttl_ms(full_ns) + pad_ms)
end

return eval, write
