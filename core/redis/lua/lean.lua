-- lean.lua: decide.lua's lean path (issue 18) and the writes a call holds, appended after
-- pressure.lua, so both are defined once when the function library loads (and again at every
-- run of the EVALSHA script, like every helper there).

-- Stores the writes a call held for later decisions of the same key that then wrote nothing
-- (refusals, failed decisions): held[state key] = {limit, d.a, d.b, instant, d.x}, the state
-- last decided for the key (d.x: the TTL's end the key holds, token_bucket.lua). ls_lean and
-- decide.lua's general path call it before they return a reply (a call that returns an error
-- has decided nothing: decide.lua checks every argument and override first).
local function ls_flush(held, pad)
  if not held then return end
  for key, st in pairs(held) do
    local p = st[1]
    p.write(p, key, {a = st[2], b = st[3], x = st[5]}, st[4], pad)
  end
end

-- The call's decision arguments as numbers in `cs` (a reused table), or nil when one is not a
-- plain cost (a costs list, options): the lean path takes plain costs only. `e`: the kept
-- config, whose cost texts are converted once (e.cnum: text -> number, at most 64; tonumber is
-- a strtod, about as dear as a decision's arithmetic), or false.
local function ls_plain_costs(ARGV, n, cs, e)
  for i = 1, n do
    local a = ARGV[1 + i]
    local c = e and e.cnum[a]
    if not c then
      c = tonumber(a)
      if c == nil then return nil end
      if e and e.ncnum < 64 then e.cnum[a], e.ncnum = c, e.ncnum + 1 end
    end
    cs[i] = c
  end
  return cs
end

-- The lean path's one token-bucket decision (issue 18): token_bucket.lua's eval and write,
-- ls_record and ls_tb_store in one function, for the common case only: a readable state within
-- the bounds eval checks (-max debt <= tokens <= C, ts and exp integral, ts at most one refill
-- ahead), a cost in (0, C] that is admitted, and a level left at or above the pressure index's
-- threshold. The same expressions in the same order as there, so the same doubles: the
-- decision and the written state are those of the general code, without its decision table,
-- its seven helper calls and the table writes they make (each costs about as much as the
-- arithmetic); the record is the short form of an admission (32 bytes).
-- Returns the record, or nil when the case is another (nothing is written then): the caller
-- decides it the general way. hold (a batch that decides the key again later): nothing is
-- written, and the record comes with the state to hold (tokens, ts, exp), as ls_lean holds it.
local function ls_tb_admit(skey, t, p, version, raw, cost, pad, hold)
  local C, amount, period = p.capacity, p.amount, p.period
  local tokens, last, x = C, t, 0
  if raw then
    local len = #raw
    if len == 24 then
      tokens, last, x = struct.unpack('<ddd', raw)
    elseif len == 16 then
      tokens, last = struct.unpack('<dd', raw)
    else
      return nil
    end
    -- eval's checks, negated: anything it might reset (NaN fails every comparison), and a
    -- level above a lowered capacity, go the general way.
    if not (tokens >= -(amount * 3600000000000 / period) and tokens <= C and last >= 0 and
            last % 1 == 0 and last <= 9007199254740992 and (last - t) * 1000 <= C * (period / amount) and
            x >= 0 and x % 1 == 0) then
      return nil
    end
  end
  local level = tokens
  if t > last then level = tokens + ((t - last) * 1000) * amount / period end
  if not (level < C) then level = C end
  if not (cost > 0 and cost <= C and level >= cost) then return nil end
  local rem = level - cost
  if rem < p.max * LS_PRESSURE_BELOW then return nil end
  -- time_math::ceil_ns of the time until full (ls_ceil_ns): reset_after, and the TTL's need.
  local ns = (C - rem) * (period / amount)
  local reset = 0
  if ns > 0 then
    if ns >= 2305843009213693952 then
      reset = 2305843009213693952
    else
      reset = ns - ns % 1
      if reset < ns then reset = reset + 1 end
    end
  end
  local b = last
  if t > last then b = t end
  -- The short record of an admission with nothing else to report (ls_record's allowed,
  -- reason allowed, no reset, no shadow, retry 0 and no name are implied: 4 fields to pack
  -- instead of 9; parse_decision_record, kAdmittedRecordBytes).
  local rec = struct.pack('<dddd', rem, C, reset, version)
  if hold then return rec, rem, b, x end
  -- write(): the TTL (ls_ttl_ms of the time until full, plus the pad), stored by ls_tb_store.
  local ms = ((b - t) * 1000 + reset) / 1000000
  if not (ms > 1) then
    ms = 1
  else
    local f = ms - ms % 1
    if f < ms then ms = f + 1 else ms = f end
  end
  ls_tb_store(skey, rem, b, x, t, ms + pad, p.f2)
  return rec
end

-- GCRA's common decisions in state format 3 (issue 18), for ls_lean: gcra.lua's eval, write
-- and ls_record written out in one loop, from decision i0 on while each is common: a 24-byte
-- state within eval's bounds (or none) and a cost in (0, C], admitted with at least the pressure
-- index's threshold left (the short record; the write as gcra.lua's, held when the call decides
-- the key again) or refused (the full record, nothing written). The same expressions in the
-- same order as there, so the same numbers. It stops before the first other decision (a text
-- state, a reset, an invalid cost, the pressure index), having written nothing for it, and
-- returns its index (n + 1 when none is left) and the call's held writes (ls_lean's `held`);
-- the records go into out[i].
local function ls_gcra_run(KEYS, n, i0, t, p, version, vals, cs, pad, held, out)
  local pack, unpack3, call = struct.pack, struct.unpack, redis.call
  local C, t_ns, limit_ns, pmin = p.capacity, p.c, p.e, p.max * LS_PRESSURE_BELOW
  local now_ms = (t - t % 1000) / 1000
  for i = i0, n do
    local raw, cost = vals[1 + i], cs[i]
    local tat_us, rem, x = t, 0, 0
    if raw then
      if #raw ~= 24 then return i, held end
      tat_us, rem, x = unpack3('<ddd', raw)
      if not (tat_us >= 0 and tat_us <= 9007199254740992 and tat_us % 1 == 0 and rem >= 0 and rem < 1000 and
              rem % 1 == 0 and x >= 0 and x % 1 == 0) then
        return i, held
      end
    end
    if not (cost > 0 and cost <= C) then return i, held end
    local cost_ns = t_ns
    if cost ~= 1 then
      cost_ns = cost * t_ns  -- ls_round_ns, at least 1
      if cost_ns >= 2305843009213693952 then
        cost_ns = 2305843009213693952
      else
        local f = cost_ns - cost_ns % 1
        if cost_ns - f >= 0.5 then cost_ns = f + 1 else cost_ns = f end
      end
      if cost_ns < 1 then cost_ns = 1 end
    end
    local b = (tat_us - t) * 1000 + rem
    if b < 0 then b = 0 end
    if b > limit_ns then return i, held end  -- eval resets it
    local nb = b + cost_ns
    if nb > limit_ns then
      -- Exhausted: level(b), retry_after nb − C·T, reset_after b (ls_record, reason 1).
      local l = (limit_ns - b) / t_ns
      if C < l then l = C end
      out[i] = pack('<BBBBddddd', 0, 1, 0, 0, l, C, nb - limit_ns, b, version)
    else
      local l = (limit_ns - nb) / t_ns
      if C < l then l = C end
      if l < pmin then return i, held end
      local r = nb % 1000
      local tus = t + (nb - r) / 1000
      local base = KEYS[3 + i]
      local again = false
      for k = i + 1, n do
        if KEYS[3 + k] == base then again = true break end
      end
      if again then
        -- A later decision of this call on the same key reads what was just decided.
        local v = pack('<ddd', tus, r, x)
        for k = i + 1, n do
          if KEYS[3 + k] == base then vals[1 + k] = v end
        end
        if not held then held = {} end
        held[base] = {p, nb, 0, t, x}
      else
        if held then held[base] = nil end
        -- ls_tb_store(base, tus, r, x, t, ls_ttl_ms(nb) + pad, true)
        local ms = nb / 1000000
        if not (ms > 1) then
          ms = 1
        else
          local f = ms - ms % 1
          if f < ms then ms = f + 1 else ms = f end
        end
        ms = ms + pad
        if x >= now_ms + ms then
          call('SET', base, pack('<ddd', tus, r, x), 'KEEPTTL')
        else
          ms = ms + 1000
          call('SET', base, pack('<ddd', tus, r, now_ms + ms - 1), 'PX', ms)
        end
      end
      out[i] = pack('<dddd', l, C, nb, version)
    end
  end
  return n + 1, held
end

-- The lean path. decide.lua calls it for a rule with one token-bucket or GCRA limit, no
-- per-key overrides, no shadow and no old-schema states ahead, on a call whose decision
-- arguments are all plain costs: from the function library's kept config when the stamp read
-- is the kept one, and from a config just read from the hash (EVALSHA, or FCALL after a change).
-- Each decision is the general path's single-limit branch (the same eval, record, write and
-- pressure-index test), with none of its work for options, settlements, composites, overrides
-- and shadows. p, d: the limit and its reused decision table; vals: the MGET of the stamp and
-- the states (vals[1 + i]: decision i's); cs: the costs as numbers; tried: the fast path
-- (fast.lua) declined this call already, so ls_tb_admit would too. Returns the reply.
local function ls_lean(KEYS, ARGV, n, t, p, d, version, vals, cs, pad, cfg, label_at, tried)
  if n == 1 and not tried and p.alg == 'token-bucket' then
    local rec = ls_tb_admit(KEYS[4], t, p, version, vals[2], cs[1], pad)
    if rec then return rec end
  end
  local out = {}
  -- A key decided again later in this call has its write held until its last write of the
  -- call, so a call sets each key once (a coalesced batch repeats hot keys).
  local held = false
  -- GCRA in state format 3 (issue 18): runs of common decisions are made by ls_gcra_run; a
  -- token bucket's plain admission in a batch by ls_tb_admit.
  local gc = p.f3 and p.alg == 'gcra'
  local tb = n > 1 and p.alg == 'token-bucket'
  if gc and p.c == 0 then ls_gcra_derive(p) end
  local pack = struct.pack
  -- GCRA: where ls_gcra_run goes on, and the decision it last left to the general branch.
  local run_from, stop = 1, 0
  for i = 1, n do
    local base = KEYS[3 + i]
    local rec = false
    if gc then
      if i == run_from then
        stop, held = ls_gcra_run(KEYS, n, i, t, p, version, vals, cs, pad, held, out)
        run_from = stop + 1
        if stop > n then break end
      end
      if i < stop then rec = out[i] end
    end
    if rec then
      if n == 1 then return rec end
      out[i] = rec
    else
      -- A key decided again later in this call: its write is held, and those decisions read it.
      local again = false
      for k = i + 1, n do
        if KEYS[3 + k] == base then again = true break end
      end
      -- What a decision stores: v the state (encoded when held), a, b, x its fields.
      local wrote, v, a, b, x = false, nil, 0, 0, 0
      if tb then
        rec, a, b, x = ls_tb_admit(base, t, p, version, vals[1 + i], cs[i], pad, again)
        if rec then
          wrote = true
          if again then v = pack('<ddd', a, b, x) end
        end
      end
      if not rec then
        d.settle = 0
        p.eval(p, base, t, cs[i], d, vals[1 + i], false)
        rec = ls_record(d.allowed, d.reason, d.fix and 1 or 0, 0, d.remaining, d.limit, d.retry, d.reset,
                        version, '')
        local w = d.write
        if w then
          wrote, v, a, b, x = true, p.write(p, base, d, t, pad, again), d.a, d.b, d.x
          -- Pressure index: one compare; more only for a level left below the threshold.
          if d.remaining < p.max * LS_PRESSURE_BELOW then
            local sc = ls_pressure_score(p, d, t, w, ARGV[1 + i], 1)
            if sc then ls_pressure_add(cfg, string.sub(base, label_at), sc, t) end
          end
        end
      end
      if wrote then
        if again then
          for k = i + 1, n do
            if KEYS[3 + k] == base then vals[1 + k] = v end
          end
          if not held then held = {} end
          held[base] = {p, a, b, t, x}
        elseif held then
          held[base] = nil  -- stored just now
        end
      end
      if n == 1 then return rec end
      out[i] = rec
    end
  end
  ls_flush(held, pad)
  if n == 1 then return out[1] end  -- a single GCRA decision ls_gcra_run made
  return out
end
