-- decide.lua: one or many decisions of one rule in one atomic call (appended after common.lua,
-- with the algorithm files pasted in below; docs/redis-schema.md describes keys and reply).
-- KEYS[1] the rule's config hash, KEYS[2] its decision stream, KEYS[3] its config stamp (a
-- string config_set.lua rewrites at every change), KEYS[4..] the state key of each decision (a
-- composite rule's limits append ":<name>"; same hash tag, so same slot).
-- ARGV[1] the call's header: now in µs ("" = the server's TIME; "by:<µs>" = the server's TIME,
-- and nothing is decided when it is past that deadline), then ",<decision-log MAXLEN>" (absent:
-- 0, no log) and ",<ms added to every TTL>" (test mode only; absent: 0). Then one argument per
-- decision: its costs ("c" for every limit, or "c1,c2,..." one per limit), followed only when
-- it has options by "|<now>|<settlement>|<log flag>": its own instant in µs ("" = the call's;
-- test mode); a settlement ("" = none; "<delta>" for the rule's only limit, "<delta>:<name>" for
-- a composite's token-bucket limit: the key's level minus delta, applied before the decision and
-- stored even when it refuses); the log flag ("" none, "1" = XADD this decision,
-- "1:<tokens>:<model>" = XADD it with the request's LLM tokens and model, either may be empty).
-- The decision's label (the limited key) is its state key after "<prefix>{R}:s:". Every
-- argument costs the server, so what a decision rarely needs shares its one argument.
-- A single-limit rule may hold per-key overrides ("o.<field>.<key>" in the config hash, counted
-- by its "overrides" field): a decision whose label has one uses those parameters instead.
--
-- Cost (issue 18): a call reads the stamp and every token-bucket and GCRA state in one MGET,
-- the server's TIME once, and writes each state with one SET PX. The parsed config is kept
-- between calls of the function library (ls_config_cache) and reused while the stamp read in
-- that MGET is the one it was parsed under, so a change is in force at the next decision. A
-- kept config marked lean (one token-bucket or GCRA limit, no overrides, no shadow, no old
-- hash states) decides calls whose arguments are all plain costs on the lean path below, with
-- nothing but the decisions' own work.
-- Shadow (issue 19): a candidate config in "<prefix>{R}:shadow" is parsed with the live one and
-- kept in the same entry (shadow changes rewrite the stamp), evaluated on the same requests on
-- its own state keys "<prefix>{R}:sh:<label>" and never enforced: its outcome is the reply record's
-- shadow byte (ls_record; 0 when the rule has none), a `shadow` field of the decision
-- log, and counts in "<prefix>{R}:shadow:counts"; during a staged rollout
-- ("<prefix>{R}:shadow:rollout") it decides the keys inside the rollout's share. A rule without
-- a shadow pays one test per
-- decision, and one string.find on the stamp when its config is read again.

-- The header (ls_header); the EVALSHA script's lean prelude (lean_evalsha.lua) has read it
-- already when it hands a call on (ls_pre; false in the function library), and the function
-- library's fast path (fast.lua, pasted at the marker below; nothing in the script) when it
-- declines a call after reading TIME.
local t_call, log_max, pad = false, 0, 0
--@FAST
if t_call then
  -- read by the fast path
elseif ls_pre then
  t_call, log_max, pad = ls_pre.t, ls_pre.log_max, ls_pre.pad
else
  t_call, log_max, pad = ls_header(ARGV[1], ls_seconds)
  if t_call == nil then return log_max end  -- the error reply
end
local n = #KEYS - 3
if n < 1 or #ARGV ~= 1 + n then
  return redis.error_reply('LSARG expected 1 argument per state key after the header, got ' .. (#ARGV - 1) ..
                           ' for ' .. n)
end
local label_at = #KEYS[1] - 3  -- "<prefix>{R}:config" and "<prefix>{R}:s:<label>"

-- The lean path (issue 18): a kept config marked lean and plain costs only. The same decisions
-- as the general path below (each is its single-limit branch, `one`), with none of its work for
-- options, settlements, composites, overrides, shadows and old hash states.
local cfg = KEYS[1]
local entry = ls_config_cache and ls_config_cache[cfg]
local vals
if entry and entry.lean and (entry.legacy_until == 0 or t_call >= entry.legacy_until) then
  -- The call's costs (entry.costs, reused); one decision's cost text is converted once per kept
  -- config (entry.cnum: text -> number, at most 64; tonumber costs a strtod).
  local cs = entry.costs
  if n == 1 then
    local a = ARGV[2]
    local c = entry.cnum[a]
    if c == nil then
      c = tonumber(a)
      if c ~= nil and entry.ncnum < 64 then
        entry.cnum[a], entry.ncnum = c, entry.ncnum + 1
      end
    end
    if c then cs[1] = c else cs = nil end
  else
    cs = ls_plain_costs(ARGV, n, cs, entry)
  end
  if cs then
    vals = redis.call('MGET', unpack(KEYS, 3))
    if vals[1] == entry.stamp then
      return ls_lean(KEYS, ARGV, n, t_call, entry.limits[1], entry.ds[1], entry.version, vals, cs, pad, cfg,
                     label_at)
    end
    entry = nil  -- the config changed: read it again below
  end
end

-- Arguments, checked before any decision is made: costs[i] the decision's costs text,
-- opts[i] = {now, settlement, log flag, tokens, model}, made only for decisions that have any.
local costs_of, opts = {}, nil
for i = 1, n do
  local a = ARGV[1 + i]
  local bar = string.find(a, '|', 1, true)
  if bar == nil then
    costs_of[i] = a
  else
    local costs_s, now_s, settle_s, f = string.match(a, '^([^|]*)|([^|]*)|([^|]*)|(.*)$')
    if costs_s == nil then
      return redis.error_reply("LSARG a decision must be '<costs>' or '<costs>|<now>|<settlement>|<log flag>', got '" ..
                               a .. "'")
    end
    local tok, model = nil, nil
    if f ~= '' and f ~= '1' and f ~= '0' then
      tok, model = string.match(f, '^1:(%d*):(.*)$')
      if tok == nil then
        return redis.error_reply("LSARG log flag must be '', '1' or '1:<tokens>:<model>', got '" .. f .. "'")
      end
      f = 'x'
    end
    if opts == nil then opts = {} end
    costs_of[i] = costs_s
    opts[i] = {now_s, settle_s, f, tok ~= '' and tok or nil, model ~= '' and model or nil}
  end
end

-- The config: kept from an earlier call while the stamp is the same (one MGET reads it with the
-- states), else read from the hash and parsed. vals: that MGET's reply, the stamp first.
if entry then
  vals = ls_read_states(KEYS, entry.limits, entry.npre, n)
  if vals[1] ~= entry.stamp then entry = nil end
end
local limits, ds, version, has_overrides, npre
local shadow = false  -- the shadow's limits, decision tables and hash, when the rule has one
local legacy = false  -- no stamp: a config written before issue 18, states may be old hashes
if entry then
  limits, ds, version, has_overrides, npre = entry.limits, entry.ds, entry.version, entry.overrides, entry.npre
  shadow = entry.shadow
else
  local raw = ls_pre and ls_pre.raw or ls_read_config(cfg)
  if raw.err then return redis.error_reply('LSCONFIG ' .. cfg .. ' is not a hash') end
  if not raw[1] then
    return redis.error_reply('LSCONFIG no config at ' .. cfg .. ' (limitscope-cli config set)')
  end
  version = ls_uint(raw[7])
  if version == nil then
    return redis.error_reply('LSCONFIG ' .. cfg .. ': version must be an integer, got ' .. tostring(raw[7]))
  end
  -- First the live config (h = 1), then its states and stamp (the MGET), then the shadow
  -- (h = 2) when the stamp marks one (" s<version>") or there is no stamp: a rule without a
  -- shadow never reads the shadow hash.
  local made, sets, hk, hr = {}, {}, cfg, raw
  for h = 1, 2 do
    if h == 2 then
      local stamp = vals[1]
      if stamp and not string.find(stamp, ' s%d') then break end
      hk = string.sub(cfg, 1, -7) .. 'shadow'
      hr = ls_read_config(hk)
      if hr.err or not hr[1] then break end  -- none, or cleared (no algorithm)
    end
    -- Each limit: its fields, where to blame errors, its name ('' for a single-limit rule).
    local specs, err = {}, nil
    if hr[1] == 'composite' then
      for name in string.gmatch(hr[8] or '', '[^,]+') do
        if not string.match(name, '^[%w_%-]+$') then
          err = 'LSCONFIG ' .. hk .. ": bad limit name '" .. name .. "'"
          break
        end
        local f = redis.call('HMGET', hk, name .. '.algorithm', name .. '.capacity',
                             name .. '.refill_amount', name .. '.refill_period_ns', name .. '.limit',
                             name .. '.window_ns')
        specs[#specs + 1] = {f, 'LSCONFIG ' .. hk .. ' limit ' .. name .. ': ', name}
      end
      if err == nil and #specs == 0 then
        err = 'LSCONFIG ' .. hk .. ': a composite rule needs limits, got none'
      end
    else
      specs[1] = {hr, 'LSCONFIG ' .. hk .. ': ', ''}
    end

    -- The limits with their algorithm's eval and write. The algorithm files are pasted in at
    -- the marker below, inside this loop rather than in a function: a function holding them
    -- would capture every helper as an upvalue, which Redis's Lua charges at every script run.
    local lims, np = {}, 0
    for k = 1, err == nil and #specs or 0 do
      local p, e = ls_params(specs[k][1], specs[k][2])
      if p == nil then
        err = e
        break
      end
      local m = made[p.alg]
      if m == nil then
        local algo_eval, algo_write
        --@ALGORITHMS
        m = {algo_eval, algo_write}
        made[p.alg] = m
      end
      p.eval, p.write = m[1], m[2]
      local name = specs[k][3]
      if name ~= '' then p.name, p.suffix = name, ':' .. name end
      -- Token-bucket and GCRA states are strings, read with the stamp in one MGET.
      if p.alg == 'token-bucket' or p.alg == 'gcra' then
        np = np + 1
        p.rank = np
      end
      lims[#lims + 1] = p
    end
    if err and h == 1 then return redis.error_reply(err) end
    -- A shadow the script cannot read (edited by hand) is not evaluated; the rule decides as usual.
    if err == nil then
      local dd = {}  -- one decision table per limit, reused for every decision (and call, when kept)
      for j = 1, #lims do dd[j] = ls_decision() end
      sets[h] = {limits = lims, npre = np, ds = dd, hash = hk,
                 overrides = #lims == 1 and (ls_uint(hr[9]) or 0) > 0, share = 0}
      if h == 2 and #lims == 1 then
        -- A staged rollout (issue 19 item 3) enforces a single-limit shadow for share/10000 of
        -- the keys, while it is running or paused and names this shadow's version.
        local ro = redis.pcall('HMGET', hk .. ':rollout', 'state', 'share_bp', 'shadow_version')
        if not ro.err and (ro[1] == 'running' or ro[1] == 'paused') and ro[3] == hr[7] then
          sets[h].share = ls_uint(ro[2]) or 0
        end
      end
    end
    if h == 1 then
      limits, npre, ds, has_overrides = lims, np, sets[1].ds, sets[1].overrides
      -- The prelude's MGET, when it made one, is this read (a single token-bucket or GCRA limit).
      vals = ls_pre and ls_pre.vals or ls_read_states(KEYS, limits, npre, n)
    end
  end
  shadow = sets[2] or false
  local stamp = vals[1]
  -- Token-bucket states in format 2, GCRA states in format 3, only where the stamp allows it
  -- (ls_stamp_format): live and shadow.
  local format = ls_stamp_format(stamp)
  if format > 1 then
    for j = 1, #limits do limits[j].f2, limits[j].f3 = true, format > 2 end
    for j = 1, shadow and #shadow.limits or 0 do shadow.limits[j].f2, shadow.limits[j].f3 = true, format > 2 end
  end
  if stamp then
    -- config_set.lua marks a rule configured before issue 18 with the instant its last
    -- old-schema state has expired by: until then a missing token-bucket string may be a hash.
    local until_us = tonumber(string.match(stamp, ' legacy (%d+)$') or '0')
    if ls_config_cache then
      if ls_config_count >= 1000 then ls_config_cache, ls_config_count = {}, 0 end
      if ls_config_cache[cfg] == nil then ls_config_count = ls_config_count + 1 end
      -- Lean: one token-bucket or GCRA limit, no overrides, no shadow (the lean path above).
      ls_config_cache[cfg] = {stamp = stamp, limits = limits, ds = ds, version = version,
                              overrides = has_overrides, npre = npre, legacy_until = until_us,
                              shadow = shadow, costs = {}, cnum = {}, ncnum = 0,
                              lean = #limits == 1 and npre == 1 and not has_overrides and not shadow,
                              tb = false, gc = false}
      -- The fast path's (fast.lua): a lean token bucket, with its numbers computed as
      -- ls_tb_admit computes them, and the library's locals for redis.call and struct.
      local e, p = ls_config_cache[cfg], limits[1]
      if e.lean and p.alg == 'token-bucket' then
        e.tb, e.C, e.amount, e.period, e.f2 = true, p.capacity, p.amount, p.period, p.f2
        e.tmin = -(p.amount * 3600000000000 / p.period)
        e.ahead = p.capacity * (p.period / p.amount)
        e.ppa = p.period / p.amount
        e.pmin = p.max * LS_PRESSURE_BELOW
        -- The rule's other key names, kept so each call finds them interned (not made again).
        e.names = {KEYS[2], KEYS[3]}
        ls_call, ls_pack, ls_unpack = redis.call, struct.pack, struct.unpack
      elseif e.lean and p.alg == 'gcra' and p.f3 then
        -- A lean GCRA in state format 3: T, C·T and the threshold, as ls_gcra_run reads them.
        if p.c == 0 then ls_gcra_derive(p) end
        e.gc, e.C, e.T, e.L, e.f2 = true, p.capacity, p.c, p.e, p.f2
        e.pmin = p.max * LS_PRESSURE_BELOW
        e.names = {KEYS[2], KEYS[3]}
        ls_call, ls_pack, ls_unpack = redis.call, struct.pack, struct.unpack
      end
    end
    legacy = t_call < until_us
  else
    legacy = true
  end
end
if entry and entry.legacy_until > 0 then legacy = t_call < entry.legacy_until end
local single = #limits == 1

-- The lean path for a config just read (EVALSHA, which keeps nothing; FCALL after a change) or
-- kept but not taken above: the same conditions and decisions as there.
if opts == nil and single and npre == 1 and not has_overrides and not shadow and not legacy then
  local cs = ls_plain_costs(ARGV, n, {}, false)
  if cs then return ls_lean(KEYS, ARGV, n, t_call, limits[1], ds[1], version, vals, cs, pad, cfg, label_at) end
end

-- The shadow's string states (token bucket, GCRA), one MGET: svals[(i - 1) * snpre + p.rank].
local svals, snpre, sprefix, sa, sr, swr, swa
if shadow then
  snpre, sprefix, sa, sr, swr, swa = shadow.npre, string.sub(cfg, 1, -7) .. 'sh:', 0, 0, 0, 0
  if snpre > 0 then
    local ks = {}
    for i = 1, n do
      local sbase = sprefix .. string.sub(KEYS[3 + i], label_at)
      for j = 1, #shadow.limits do
        local p = shadow.limits[j]
        if p.rank > 0 then ks[#ks + 1] = sbase .. p.suffix end
      end
    end
    svals = redis.call('MGET', unpack(ks))
  end
end
-- Every argument and override is checked before any decision is made: a call that fails with
-- an error reply decides and stores nothing (its caller cannot tell which of its decisions
-- would have been charged, and answers them all by its failure policy). times[i]: a decision's
-- own instant; lists[i]: its costs when they are not one plain number; firsts[i]: its limit
-- with its key's override (rules with overrides only). A bad settlement or a refused log
-- write fails its own decision only, in its place in the reply.
local times, lists, firsts = nil, nil, nil
for i = 1, n do
  local op = opts and opts[i]
  if op and op[1] ~= '' then
    local ti = ls_uint(op[1])
    if ti == nil then
      return redis.error_reply('LSARG now must be an integer count of microseconds >= 0, got ' .. op[1])
    end
    if not times then times = {} end
    times[i] = ti
  end
  local costs_s = costs_of[i]
  if not (single and tonumber(costs_s)) then
    local costs = {}
    for c in string.gmatch(costs_s, '[^,]+') do
      local x = tonumber(c)
      if x == nil then return redis.error_reply("LSARG cost must be a number, got '" .. c .. "'") end
      costs[#costs + 1] = x
    end
    if #costs ~= 1 and #costs ~= #limits then
      return redis.error_reply('LSARG expected 1 or ' .. #limits .. " costs, got '" .. costs_s .. "'")
    end
    if not lists then lists = {} end
    lists[i] = costs
  end
  if has_overrides then
    local f, err = ls_override(cfg, string.sub(KEYS[3 + i], label_at), limits[1])
    if f == nil then return redis.error_reply(err) end
    if not firsts then firsts = {} end
    firsts[i] = f
  end
end

-- The reply: one string per decision (ls_record), or an error where a decision was not made.
local out = {}
local held = false  -- writes held for a later decision of the same key (ls_flush)
for i = 1, n do
  local costs_s = costs_of[i]
  local op = opts and opts[i]
  local settle_s, log_flag = '', ''
  local t = times and times[i] or t_call
  if op then settle_s, log_flag = op[2], op[3] end
  local base = KEYS[3 + i]
  local at = 1 + (i - 1) * npre  -- vals[at + p.rank]: this decision's pre-read states
  local all, was_reset, remaining, limit, retry, reset, reason, name
  local one = false  -- decided on the single path: its state key is `base` itself
  -- This key's override of the single limit, if it has one (read above).
  local first = firsts and firsts[i] or limits[1]
  -- A settlement riding on this decision: which limit, by how much (an error fails this
  -- decision alone, having written nothing).
  local settle_j, delta, bad, sname = 0, 0, nil, nil
  if settle_s ~= '' then
    local c = string.find(settle_s, ':', 1, true)
    sname = c and string.sub(settle_s, c + 1) or ''
    delta = ls_num(c and string.sub(settle_s, 1, c - 1) or settle_s)
    for j = 1, #limits do
      if limits[j].name == sname then settle_j = j end
    end
    if delta == nil then
      bad = "LSARG settlement must be '<delta>' or '<delta>:<limit>', got '" .. settle_s .. "'"
    elseif settle_j == 0 then
      bad = 'LSCONFIG ' .. cfg .. (sname == '' and ' is a composite rule: name the limit to settle'
                                   or ' has no limit ' .. sname .. ': nothing to settle')
    elseif limits[settle_j].alg ~= 'token-bucket' then
      bad = 'LSCONFIG ' .. cfg .. (sname == '' and ': ' or ' limit ' .. sname .. ': ') ..
            'settle applies to token-bucket limits only, got ' .. limits[settle_j].alg
    end
  end
  local failed = bad
  -- One limit, one cost (a list "c1,c2" is no number), nothing to settle: no combining.
  local cost = not bad and single and settle_j == 0 and tonumber(costs_s)
  if bad then
    -- nothing decided
  elseif cost then
    local p, d = first, ds[1]
    d.settle = 0
    p.eval(p, base, t, cost, d, p.rank > 0 and vals[at + p.rank], legacy)
    one = true
    all, was_reset = d.allowed, d.fix and 1 or 0
    remaining, limit, retry, reset, reason, name = d.remaining, d.limit, d.retry, d.reset, d.reason, ''
  else
    local costs = lists and lists[i] or {tonumber(costs_s)}  -- checked above
    all, was_reset = true, 0
    for j = 1, #limits do
      local p, d = j == 1 and first or limits[j], ds[j]
      d.settle = j == settle_j and delta or 0
      p.eval(p, base .. p.suffix, t, costs[#costs == 1 and 1 or j], d, p.rank > 0 and vals[at + p.rank], legacy)
      if not d.allowed then all = false end
    end
    for j = 1, #limits do
      if ds[j].fix then was_reset = 1 end
    end
    -- The most restrictive limit (CompositeLimiter's combine()); higher severity wins.
    local severity = LS_REASON
    local o = ds[1]
    reset, reason, retry = o.reset, o.reason, 0
    for j = 2, #ds do
      local d = ds[j]
      if d.reset > reset then reset = d.reset end
      if severity[d.reason] > severity[reason] then reason = d.reason end
    end
    -- The limit reported (remaining, limit, name): on a refusal the one that refused (the most
    -- severe reason, then the longest retry, nil being the longest, then the first); when all
    -- admit, the one with the least remaining (combine()'s reported_child()).
    local r = 0
    if all then
      r = 1
      for j = 2, #ds do
        if ds[j].remaining < ds[r].remaining then r = j end
      end
    else
      for j = 1, #ds do
        local d = ds[j]
        if not d.allowed then
          if r == 0 then
            r = j
          else
            local sd, sr = severity[d.reason], severity[ds[r].reason]
            local longer = ds[r].retry ~= nil and (d.retry == nil or d.retry > ds[r].retry)
            if sd > sr or (sd == sr and longer) then
              r = j
            end
          end
        end
      end
    end
    remaining, limit, name = ds[r].remaining, ds[r].limit, limits[r].name
    if not all then
      for j = 1, #ds do
        if ds[j].retry == nil then retry = nil break end
        if ds[j].retry > retry then retry = ds[j].retry end
      end
    end
  end
  -- The shadow on the same request (issue 19): each of its limits takes the cost of the live
  -- limit of the same name, else the one at its position (a single limit: the first), and the
  -- settlement when it has a token-bucket limit of that name. Its outcome `sv` is never enforced.
  local sv, sbase, sfirst = nil, nil, nil
  if shadow and not failed then
    local label = string.sub(base, label_at)
    local sl, sd = shadow.limits, shadow.ds
    sfirst = sl[1]
    sbase = sprefix .. label
    if shadow.overrides then sfirst = ls_override(shadow.hash, label, sfirst) end
    local costs = {}
    for c in string.gmatch(costs_s, '[^,]+') do costs[#costs + 1] = tonumber(c) end
    if sfirst then sv = true end
    local sat = (i - 1) * (snpre or 0)
    for j = 1, sv and #sl or 0 do
      local p, d = j == 1 and sfirst or sl[j], sd[j]
      local cost = costs[1]
      if #costs > 1 then
        cost = costs[j]
        for k = 1, #limits do
          if limits[k].name == p.name and p.name ~= '' then cost = costs[k] end
        end
      end
      if cost == nil then
        sv = nil  -- more shadow limits than costs, none named alike: not evaluated
        break
      end
      d.settle = (sname == p.name and p.alg == 'token-bucket') and delta or 0
      p.eval(p, sbase .. p.suffix, t, cost, d, p.rank > 0 and svals[sat + p.rank], false)
      if not d.allowed then sv = false end
    end
  end
  -- A key inside a rollout's share is decided by the shadow (the first 28 bits of the SHA-1 of
  -- its label, mod 10000, below the share: the same partition on every gateway and in
  -- core/redis/rollout.h). Both configs' states still follow their own outcomes.
  local live_all = all
  if sv ~= nil and shadow.share > 0 and
     tonumber(string.sub(redis.sha1hex(string.sub(base, label_at)), 1, 7), 16) % 10000 < shadow.share then
    local d = shadow.ds[1]
    all, remaining, limit, retry, reset, reason, name = sv, d.remaining, d.limit, d.retry, d.reset, d.reason, ''
  end
  if not failed then
    if log_max > 0 and (log_flag == '1' or log_flag == 'x') then
      local entry = {'t', t, 'key', string.sub(base, label_at), 'cost', costs_s, 'allowed', all and 1 or 0,
                     'level', remaining}
      -- A composite's level is one limit's: the one that refused, else the least remaining.
      if name ~= '' then entry[#entry + 1] = 'limit' entry[#entry + 1] = name end
      if sv ~= nil then entry[#entry + 1] = 'shadow' entry[#entry + 1] = sv and 1 or 0 end
      if op[4] then entry[#entry + 1] = 'tokens' entry[#entry + 1] = op[4] end
      if op[5] then entry[#entry + 1] = 'model' entry[#entry + 1] = op[5] end
      -- A refusal's promised wait (what Retry-After rounds up), µs rounded up, for audit
      -- retry-after; absent when the request can never succeed.
      if not all and retry ~= nil then
        entry[#entry + 1] = 'retry_us'
        entry[#entry + 1] = string.format('%d', math.ceil(retry / 1000))
      end
      -- Before any state of this decision is written: a log write the server refuses (an ACL
      -- without XADD, a key of another type) fails this decision alone, having taken nothing.
      local added = redis.pcall('XADD', KEYS[2], 'MAXLEN', '~', log_max, '*', unpack(entry))
      if type(added) == 'table' and added.err then
        failed = 'LSLOG decision log ' .. KEYS[2] .. ': ' .. added.err
      end
    end
    if not failed then
      -- Durations are integral ns (up to 2^61, exact in a double).
      -- The shadow's outcome (never enforced): 0 none, 1 it refuses, 2 it admits.
      out[i] = ls_record(all, reason, was_reset, sv == nil and 0 or (sv and 2 or 1), remaining, limit, retry,
                         reset, version, name)
      -- The state writes, last. All consume or none: admitted states only when every limit
      -- admits; reset and settled states always (a settled one without this decision's cost).
      local pscore = false  -- the pressure index entry this decision needs (pressure.lua)
      for j = 1, #limits do
        local p, d = j == 1 and first or limits[j], ds[j]
        local w = d.write
        if w == 'commit' and not (one or live_all) and d.settle ~= 0 then
          d.a, d.b, w = d.c, d.e, 'fix'
        end
        if (w == 'commit' and (one or live_all)) or w == 'fix' then
          local skey = j == 1 and one and base or base .. p.suffix
          -- A string state (token bucket, GCRA) of a key decided again later in this call is
          -- held: handed to the later decision, stored once with the call's last state (held,
          -- ls_flush). Other states are read from Redis by each decision: stored now.
          local again = false
          if p.rank > 0 then
            for k = i + 1, n do
              if KEYS[3 + k] == base then again = true break end
            end
          end
          local v = p.write(p, skey, d, t, pad, again)
          if again then
            for k = i + 1, n do
              if KEYS[3 + k] == base then vals[1 + (k - 1) * npre + p.rank] = v end
            end
            if not held then held = {} end
            held[skey] = {p, d.a, d.b, t, d.x}
          elseif held then
            held[skey] = nil  -- stored just now
          end
          -- Pressure index: one compare; more only for a level left below the threshold.
          if d.remaining < p.max * LS_PRESSURE_BELOW then
            local s = ls_pressure_score(p, d, t, w, costs_s, j)
            if s and not (pscore and pscore >= s) then pscore = s end
          end
        end
        if one then break end
      end
      if pscore then ls_pressure_add(cfg, string.sub(base, label_at), pscore, t) end
      if shadow then
        if sv ~= nil then
          -- The shadow's states, as the live ones: admitted only when all its limits admit.
          local sl, sd = shadow.limits, shadow.ds
          for j = 1, #sl do
            local p, d = j == 1 and sfirst or sl[j], sd[j]
            local w = d.write
            if w == 'commit' and not sv and d.settle ~= 0 then
              d.a, d.b, w = d.c, d.e, 'fix'
            end
            if (w == 'commit' and sv) or w == 'fix' then
              local v = p.write(p, sbase .. p.suffix, d, t, pad)
              if p.rank > 0 then
                for k = i + 1, n do
                  if KEYS[3 + k] == base then svals[(k - 1) * snpre + p.rank] = v end
                end
              end
            end
          end
          if sv then sa = sa + 1 else sr = sr + 1 end
          if all and not sv then swr = swr + 1 elseif sv and not all then swa = swa + 1 end
        end
      end
    end
  end
  if failed then
    -- A decision not made: its error in its place.
    out[i] = {err = failed}
  end
end
ls_flush(held, pad)
if shadow and sa + sr > 0 then
  -- The shadow's counts since it was set (config_set.lua and shadow_clear.lua delete them).
  local ck = shadow.hash .. ':counts'
  if sa > 0 then redis.call('HINCRBY', ck, 'allowed', sa) end
  if sr > 0 then redis.call('HINCRBY', ck, 'rejected', sr) end
  if swr > 0 then redis.call('HINCRBY', ck, 'would_reject', swr) end
  if swa > 0 then redis.call('HINCRBY', ck, 'would_admit', swa) end
end
-- One decision: its record (or error) alone, without the array around it.
if n == 1 then return out[1] end
return out
