-- common.lua: helpers shared by every limitscope script; prepended to each script at load
-- time (core/redis/limiter_scripts.cpp). Lua numbers are doubles: absolute times are kept in
-- microseconds (exact below 2^53 µs, about 285 years), durations in nanoseconds.
-- Cost model (Redis 7.0's Lua): every closure that captures upvalues, every table with a
-- hash part and every number-to-string conversion costs about as much as a redis.call, and
-- top-level functions are created again at every script run. So the helpers here capture
-- nothing (constants are literals: 2^61 = 2305843009213693952, 2^53 = 9007199254740992),
-- and a decision fills a reused table instead of building new ones.

local LS_FAR_NS = 2305843009213693952      -- 2^61 ns: the longest wait reported (time_math.h)

-- A finite number parsed from a Redis string, or nil ("abc", "inf", "nan", false).
local function ls_num(s)
  local x = tonumber(s)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return nil end
  return x
end

-- A non-negative integer below 2^53, or nil.
local function ls_uint(s)
  local x = tonumber(s)
  if x == nil or x < 0 or x > 9007199254740992 or x % 1 ~= 0 then return nil end
  return x
end

-- Exact text of a double (tostring keeps only 14 digits). Slow (float printing): hot paths
-- pass doubles to redis.call instead, which Redis prints with %.17g in C.
local function ls_fmt(x) return string.format('%.17g', x) end
-- Text of an integral double below 2^63 (times in µs, durations in ns): %d is about three
-- times cheaper than tostring or %.0f here.
local function ls_int(x) return string.format('%d', x) end

-- Rounding is done with `%` (x - x % 1 is floor(x), exactly, for finite x >= 0) rather than
-- math.floor/math.ceil: a call of a C function costs about 40 ns in Redis's Lua, an operator a
-- few (issue 18).

-- time_math::ceil_ns: a non-negative duration in ns rounded up, clamped to [0, 2^61].
local function ls_ceil_ns(ns)
  if not (ns > 0) then return 0 end
  if ns >= 2305843009213693952 then return 2305843009213693952 end
  local f = ns - ns % 1
  if f < ns then return f + 1 end
  return f
end

-- time_math::round_ns (llround: halves away from zero), clamped to [0, 2^61].
local function ls_round_ns(ns)
  if not (ns > 0) then return 0 end
  if ns >= 2305843009213693952 then return 2305843009213693952 end
  local f = ns - ns % 1
  if ns - f >= 0.5 then return f + 1 end
  return f
end

-- GCRA's emission interval T and its C·T in ns, derived once per limit (a kept config keeps
-- them): p.c and p.e.
local function ls_gcra_derive(p)
  local t_ns = ls_round_ns(p.period / p.amount)
  if t_ns < 1 then t_ns = 1 end
  local limit_ns = ls_round_ns(p.capacity * t_ns)
  if limit_ns < 1 then limit_ns = 1 end
  p.c, p.e = t_ns, limit_ns
end

-- A state key's TTL in ms for a state that becomes idle `ns` from now (at least 1 ms).
local function ls_ttl_ms(ns)
  local x = ns / 1000000
  if not (x > 1) then return 1 end
  local ms = x - x % 1
  if ms < x then return ms + 1 end
  return ms
end

-- Stores a token-bucket state (docs/redis-state.md). `f2`: the rule's stamp allows format 2
-- (" f2", set by limitscope-cli config state-format once every decider of the rule reads it);
-- otherwise format 1, 16 bytes (the doubles tokens and ts) with `SET … PX ttl`, as the version
-- before format 2 wrote and reads it, so a rule decided by both versions during a rolling
-- upgrade is never read as corrupt by either. Format 2: 24 bytes, the doubles tokens, ts (µs)
-- and exp, a ms instant (server clock) the key's TTL lasts at least until. `x`: the exp the key
-- holds now (0: none, or unknown). The key must live `ttl` ms after t's ms (ls_ttl_ms of the
-- time until idle, plus the test pad). When its TTL already does, `SET … KEEPTTL` (about half
-- the server time of `SET … PX`, which removes and adds the key's expiry); otherwise `SET … PX`
-- one second longer than needed, so a key decided again within that second keeps its TTL
-- (issue 18). exp is then the ms of t plus the TTL minus 1: PX counts from the SET (the same ms
-- as TIME or later on Redis 7.0; a server that counts from the script's start may be 1 ms
-- earlier). Returns the string.
local function ls_tb_store(skey, tokens, ts, x, t, ttl, f2)
  if not f2 then
    local v = struct.pack('<dd', tokens, ts)
    redis.call('SET', skey, v, 'PX', ttl)  -- a number: Redis prints it in C
    return v
  end
  local now_ms = (t - t % 1000) / 1000
  if x >= now_ms + ttl then
    local v = struct.pack('<ddd', tokens, ts, x)
    redis.call('SET', skey, v, 'KEEPTTL')
    return v
  end
  ttl = ttl + 1000
  local v = struct.pack('<ddd', tokens, ts, now_ms + ttl - 1)
  redis.call('SET', skey, v, 'PX', ttl)
  return v
end

-- The state format a rule's config stamp (decide.lua's KEYS[3]) allows its decisions to write:
-- the mark " f2" (token-bucket states of 24 bytes) or " f3" (those, and GCRA states of 24 bytes)
-- after "<version> <µs>" (state_format.lua); 1 without a mark or a stamp.
local function ls_stamp_format(stamp)
  if not stamp then return 1 end
  if string.find(stamp, ' f3', 1, true) then return 3 end
  if string.find(stamp, ' f2', 1, true) then return 2 end
  return 1
end

-- Fills decision d (allowed, limit, remaining, retry: ns or nil, reset: ns, reason); the
-- algorithm then sets d.write (nil, 'commit' when admitted, 'fix' for a reset state to store)
-- and the next state in its own fields.
local function ls_set(d, allowed, limit, remaining, retry, reset, reason)
  d.allowed, d.limit, d.remaining, d.retry, d.reset, d.reason = allowed, limit, remaining, retry, reset, reason
end

-- A fresh decision table with every field present, so filling it never allocates.
local function ls_decision()
  return {allowed = false, limit = 0, remaining = 0, retry = 0, reset = 0, reason = '',
          write = false, del = false, fix = false, a = 0, b = 0, c = 0, e = 0, f = false, g = false,
          settle = 0, x = 0}
end

-- time_math::earliest_true: smallest d in (lo, cap] with pred(d), pred monotone false→true;
-- nil when pred(cap) is false. Integers here stay below 2^53 for waits under ~104 days.
local function ls_earliest(lo, guess, cap, pred)
  if cap <= lo then return nil end
  local g = guess
  if g < lo + 1 then g = lo + 1 end
  if g > cap then g = cap end
  local hi = cap
  if pred(g) then
    hi = g
    local step = 1
    while step < hi - lo do
      local c = hi - step
      if not pred(c) then lo = c break end
      hi = c
      step = step * 2
    end
  else
    lo = g
    local found = false
    local step = 1
    while step < cap - lo do
      local c = lo + step
      if pred(c) then hi = c found = true break end
      lo = c
      step = step * 2
    end
    if not found and not pred(cap) then return nil end
  end
  while hi - lo > 1 do
    local h = (hi - lo) / 2
    local mid = lo + (h - h % 1)
    if pred(mid) then hi = mid else lo = mid end
  end
  return hi
end

-- A cost core/limiter accepts: finite and > 0 (time_math::valid_cost).
local function ls_valid_cost(c) return c > 0 and c < math.huge end

-- An error text for config field f[i] ("... got '-5'").
local function ls_bad(f, i, where, why)
  return nil, where .. why .. ', got ' .. (f[i] == false and 'nothing' or ("'" .. tostring(f[i]) .. "'"))
end

-- Parses and checks one limit's parameters from config fields; returns p or nil, message.
-- f: algorithm, capacity, refill_amount, refill_period_ns, limit, window_ns (strings/false).
local function ls_params(f, where)
  local alg = f[1]
  if alg == 'token-bucket' or alg == 'gcra' then
    local capacity, amount, period = ls_num(f[2]), ls_num(f[3]), ls_uint(f[4])
    if capacity == nil or capacity <= 0 then return ls_bad(f, 2, where, 'capacity must be a finite number > 0') end
    if amount == nil or amount <= 0 then return ls_bad(f, 3, where, 'refill_amount must be a finite number > 0') end
    if period == nil or period < 1 then
      return ls_bad(f, 4, where, 'refill_period_ns must be an integer in [1, 2^53]')
    end
    -- c, e: values an algorithm derives from the parameters once (GCRA: T and C·T).
    -- f2: token-bucket states may be written in format 2 (ls_tb_store), f3: GCRA states in
    -- format 3 (gcra.lua); both from the stamp (ls_stamp_format).
    return {alg = alg, capacity = capacity, amount = amount, period = period, max = capacity,
            eval = false, write = false, name = '', suffix = '', rank = 0, c = 0, e = 0, f2 = false,
            f3 = false}
  elseif alg == 'sliding-log' or alg == 'sliding-counter' or alg == 'fixed-window' then
    local limit, window = ls_num(f[5]), ls_uint(f[6])
    if limit == nil or limit <= 0 then return ls_bad(f, 5, where, 'limit must be a finite number > 0') end
    if window == nil or window < 1000000 or window % 1000 ~= 0 then
      return ls_bad(f, 6, where, 'window_ns must be a whole number of microseconds, at least 1ms')
    end
    return {alg = alg, limit = limit, window = window, window_us = window / 1000, max = limit,
            eval = false, write = false, name = '', suffix = '', rank = 0}
  end
  return nil, where .. "algorithm must be one of token-bucket, gcra, sliding-log, " ..
    "sliding-counter, fixed-window, got " .. (alg == false and 'nothing' or ("'" .. tostring(alg) .. "'"))
end

-- One key's override of a single-limit rule (fields "o.<field>.<label>" of the config hash
-- `hash`, one HMGET): the limit `first` with the key's parameters, `first` itself when the key
-- has none, or nil and a message when they are bad. Used only for rules that have overrides.
local function ls_override(hash, label, first)
  local o = redis.call('HMGET', hash, 'o.capacity.' .. label, 'o.refill_amount.' .. label,
                       'o.refill_period_ns.' .. label, 'o.limit.' .. label, 'o.window_ns.' .. label)
  if not (o[1] or o[2] or o[3] or o[4] or o[5]) then return first end
  local op, err = ls_params({first.alg, o[1], o[2], o[3], o[4], o[5]},
                            'LSCONFIG ' .. hash .. ' override of ' .. label .. ': ')
  if op == nil then return nil, err end
  op.eval, op.write, op.rank, op.f2, op.f3 = first.eval, first.write, first.rank, first.f2, first.f3
  return op
end

-- A shadow change (issue 19): the live config's stamp `skey` gets the mark `mark` (" s<shadow
-- version>" while a shadow is set, with "r<share>" during a rollout, " n<shadow version>" once
-- cleared) in place of the previous
-- one, before any " legacy <µs>" mark, which stays last. The stamp changes at every shadow
-- change (the shadow's version always rises), so a kept config (which holds the shadow too) is
-- read again at the next decision, and decide.lua reads the shadow hash only under an " s" mark.
-- A rule without a stamp keeps none (its config and shadow are read at every decision anyway).
local function ls_bump_stamp(skey, mark)
  local old = redis.call('GET', skey)
  if not old then return end
  local head, legacy = string.match(old, '^(.-)( legacy %d+)$')
  if head == nil then head, legacy = old, '' end
  head = string.gsub(head, ' [sn][%dr]+$', '')
  redis.call('SET', skey, head .. mark .. legacy)
end

-- decide.lua's header ARGV[1], "<now>[,<log MAXLEN>[,<pad ms>]]": returns the call's instant
-- (µs: "" = the server's TIME, "<µs>" in test mode, "by:<deadline µs>" = TIME, refused past
-- the deadline), the log MAXLEN and the TTL pad (ms); or nil and the error reply. `sec`: the
-- function library's {seconds text, its µs} of the last TIME, or false: TIME answers text, and
-- converting it costs more than the rest of the sum (strtod), so the seconds, the same for a
-- whole second of calls, are converted once (issue 18).
local function ls_time_us(sec)
  local tm = redis.call('TIME')
  if not sec then return tm[1] * 1000000 + tm[2] end
  local s = tm[1]
  if s ~= sec[1] then sec[1], sec[2] = s, s * 1000000 end
  return sec[2] + tm[2]
end

local function ls_header(a1, sec)
  local log_max, pad = 0, 0
  if a1 ~= '' and string.find(a1, ',', 1, true) then
    local ts, lm, pd = string.match(a1, '^([^,]*),(%d+),?(%d*)$')
    if ts == nil then
      return nil, redis.error_reply("LSARG the header must be '<now>[,<log MAXLEN>[,<pad ms>]]', got '" .. a1 .. "'")
    end
    a1, log_max, pad = ts, ls_uint(lm) or 0, pd == '' and 0 or ls_uint(pd) or 0
  end
  if a1 == '' then
    return ls_time_us(sec), log_max, pad
  elseif string.sub(a1, 1, 3) == 'by:' then
    local deadline = ls_uint(string.sub(a1, 4))
    if deadline == nil then
      return nil, redis.error_reply('LSARG a deadline must be by:<microseconds >= 0>, got ' .. a1)
    end
    local t = ls_time_us(sec)
    -- The caller stops waiting at its deadline (a stalled server runs the call later): past
    -- it, nothing is decided or written, so a request the caller saw fail is never charged.
    -- The reply names the server's time, from which the caller corrects its clock offset.
    if t > deadline then
      return nil, redis.error_reply(string.format('LSLATE server time %d us is past the deadline %d us', t,
                                                  deadline))
    end
    return t, log_max, pad
  end
  local t = ls_uint(a1)
  if t == nil then
    return nil, redis.error_reply('LSARG now must be an integer count of microseconds >= 0, got ' .. a1)
  end
  return t, log_max, pad
end

-- A config hash's fields, as decide.lua reads them (live or shadow): algorithm, capacity,
-- refill_amount, refill_period_ns, limit, window_ns (ls_params' f), version, limits, overrides.
local function ls_read_config(hk)
  return redis.pcall('HMGET', hk, 'algorithm', 'capacity', 'refill_amount', 'refill_period_ns', 'limit',
                     'window_ns', 'version', 'limits', 'overrides')
end

-- decide.lua's one read of a call (KEYS[3] the config stamp, KEYS[4..] the decisions' state
-- keys): MGET of the stamp and, per decision, the state of each limit whose state is a string
-- (p.rank > 0: token bucket, GCRA; npre of them). A key of another type reads as false.
local function ls_read_states(KEYS, limits, npre, n)
  if npre == 1 and #limits == 1 then return redis.call('MGET', unpack(KEYS, 3)) end
  local ks = {KEYS[3]}
  if npre > 0 then
    for i = 1, n do
      for j = 1, #limits do
        local p = limits[j]
        if p.rank > 0 then ks[#ks + 1] = KEYS[3 + i] .. p.suffix end
      end
    end
  end
  return redis.call('MGET', unpack(ks))
end

-- A token-bucket state written before issue 18, a hash {tokens, ts}, at a key MGET read as
-- false: its two fields, nil when the key is absent, or 'reset' when it is neither a string nor
-- a hash (the most restrictive state replaces it).
local function ls_legacy_tb(skey)
  local raw = redis.pcall('HMGET', skey, 'tokens', 'ts')
  if raw.err then return 'reset' end
  if raw[1] or raw[2] then return raw end
  return nil
end

-- A number for settle.lua's reply: integral ones as integers (cheap), others as the 8 bytes of
-- the double, little-endian (exact; a RESP double would be printed with %.17g).
local function ls_reply_num(x)
  if x % 1 == 0 and x < 9007199254740992 and x > -9007199254740992 then return x end
  return struct.pack('<d', x)
end

-- A decision's reasons by code, in order of severity (CompositeLimiter's combine()); the code is
-- what the reply carries.
local LS_REASON = {allowed = 0, exhausted = 1, cost_above_capacity = 3, invalid_cost = 4}

-- One decision of decide.lua's reply, a string (one bulk reply: a Lua table per decision, or 9
-- fields, cost the server more than the rest of a decision to convert): bytes allowed (0/1),
-- reason code (LS_REASON), state_reset (0/1), shadow outcome (0: none, 1: the shadow config
-- refuses, 2: it admits; issue 19), then five
-- little-endian doubles remaining, limit, retry_after ns (-1: never), reset_after ns, config
-- version, then the reported limit's name (composites; empty otherwise).
-- core/redis/decision_record.cpp reads it, and the 32-byte short form of an admission with
-- nothing else to report that lean.lua's ls_tb_admit writes (remaining, limit, reset, version).
local function ls_record(allowed, reason, was_reset, shadow, remaining, limit, retry, reset, version, name)
  local r = struct.pack('<BBBBddddd', allowed and 1 or 0, LS_REASON[reason], was_reset, shadow, remaining,
                        limit, retry or -1, reset, version)
  if name ~= '' then return r .. name end
  return r
end
