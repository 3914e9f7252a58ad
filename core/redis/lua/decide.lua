-- decide.lua: one or many decisions of one rule in one atomic call (appended after common.lua,
-- with the algorithm files pasted in below; docs/redis-schema.md describes keys and reply).
-- KEYS[1] the rule's config hash, KEYS[2] its decision stream, KEYS[3..] the state key of each
-- decision (a composite rule's limits append ":<name>"; same hash tag, so same slot).
-- ARGV[1] now in µs ("" = the server's TIME; "by:<µs>" = the server's TIME, and nothing is
-- decided when it is past that deadline), ARGV[2] decision-log MAXLEN (0 = no log),
-- ARGV[3] ms added to every TTL (test mode only), then per decision: label, costs ("c" for
-- every limit, or "c1,c2,..." one per limit), log flag ("1" = XADD this decision;
-- "1:<tokens>:<model>" = XADD it with the request's LLM tokens and model, either may be empty),
-- and its own instant in µs ("" = the call's; test mode).
-- A single-limit rule may hold per-key overrides ("o.<field>.<key>" in the config hash, counted
-- by its "overrides" field): a decision whose label has one uses those parameters instead.

-- The call's instant, µs: ARGV[1], or the server's clock.
local call_t = nil
local deadline = nil
local function call_time()
  if call_t == nil then
    if ARGV[1] == '' or deadline ~= nil then
      local tm = redis.call('TIME')
      call_t = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
    else
      call_t = ls_uint(ARGV[1])
    end
  end
  return call_t
end
local function bad_now(s)
  return redis.error_reply('LSARG now must be an integer count of microseconds >= 0, got ' .. s)
end
if string.sub(ARGV[1], 1, 3) == 'by:' then
  deadline = ls_uint(string.sub(ARGV[1], 4))
  if deadline == nil then
    return redis.error_reply('LSARG a deadline must be by:<microseconds >= 0>, got ' .. ARGV[1])
  end
  -- The caller stops waiting at its deadline (a stalled server runs the call later): past
  -- it, nothing is decided or written, so a request the caller saw fail is never charged.
  -- The reply names the server's time, from which the caller corrects its clock offset.
  if call_time() > deadline then
    return redis.error_reply(string.format('LSLATE server time %d us is past the deadline %d us',
                                           call_t, deadline))
  end
elseif ARGV[1] ~= '' and ls_uint(ARGV[1]) == nil then
  return bad_now(ARGV[1])
end
local log_max = ls_uint(ARGV[2]) or 0
local pad = ls_uint(ARGV[3]) or 0
local n = #KEYS - 2
if n < 1 or #ARGV ~= 3 + 4 * n then
  return redis.error_reply('LSARG expected 4 arguments per state key, got ' .. #ARGV .. ' for ' .. n)
end

-- Log flags with the request's tokens and model, checked before any decision is made.
local logged = nil  -- i -> {tokens or nil, model or nil}; made only when a flag carries them
for i = 1, n do
  local f = ARGV[2 + 4 * i]
  if f ~= '' and f ~= '1' and f ~= '0' then
    local tok, model = string.match(f, '^1:(%d*):(.*)$')
    if tok == nil then
      return redis.error_reply("LSARG log flag must be '', '1' or '1:<tokens>:<model>', got '" .. f .. "'")
    end
    if logged == nil then logged = {} end
    logged[i] = {tok ~= '' and tok or nil, model ~= '' and model or nil}
  end
end

local cfg = KEYS[1]
local raw = redis.pcall('HMGET', cfg, 'algorithm', 'capacity', 'refill_amount',
                        'refill_period_ns', 'limit', 'window_ns', 'version', 'limits', 'overrides')
if raw.err then return redis.error_reply('LSCONFIG ' .. cfg .. ' is not a hash') end
if not raw[1] then
  return redis.error_reply('LSCONFIG no config at ' .. cfg .. ' (limitscope-cli config set)')
end
local version = ls_uint(raw[7])
if version == nil then
  return redis.error_reply('LSCONFIG ' .. cfg .. ': version must be an integer, got ' .. tostring(raw[7]))
end

-- A function library keeps the parsed limits of single-limit rules between calls
-- (ls_config_cache: a table there, false in an EVALSHA script). They are reused only while all
-- nine fields just read are the same, so any change of the hash is in force at this decision.
local limits, ds
local cached = ls_config_cache and raw[1] ~= 'composite' and ls_config_cache[cfg]
if cached then
  local was = cached.raw
  for f = 1, 9 do
    if was[f] ~= raw[f] then cached = nil break end
  end
end
if cached then
  limits, ds = cached.limits, cached.ds
else
  -- Each limit: its fields, where to blame errors, its name ('' for a single-limit rule).
  local specs = {}
  if raw[1] == 'composite' then
    for name in string.gmatch(raw[8] or '', '[^,]+') do
      if not string.match(name, '^[%w_%-]+$') then
        return redis.error_reply('LSCONFIG ' .. cfg .. ": bad limit name '" .. name .. "'")
      end
      local f = redis.call('HMGET', cfg, name .. '.algorithm', name .. '.capacity',
                           name .. '.refill_amount', name .. '.refill_period_ns', name .. '.limit',
                           name .. '.window_ns')
      specs[#specs + 1] = {f, 'LSCONFIG ' .. cfg .. ' limit ' .. name .. ': ', name}
    end
    if #specs == 0 then
      return redis.error_reply('LSCONFIG ' .. cfg .. ': a composite rule needs limits, got none')
    end
  else
    specs[1] = {raw, 'LSCONFIG ' .. cfg .. ': ', ''}
  end

  -- The limits with their algorithm's eval and write. The algorithm files are pasted in at the
  -- marker below, inside this loop rather than in a function: a function holding them would
  -- capture every helper as an upvalue, which Redis's Lua charges at every script run.
  local made = {}
  limits = {}
  for k = 1, #specs do
    local p, err = ls_params(specs[k][1], specs[k][2])
    if p == nil then return redis.error_reply(err) end
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
    limits[#limits + 1] = p
  end

  ds = {}  -- one decision table per limit, reused for every decision (and call, when kept)
  for j = 1, #limits do ds[j] = ls_decision() end
  if ls_config_cache and raw[1] ~= 'composite' then
    if ls_config_count >= 1000 then ls_config_cache, ls_config_count = {}, 0 end
    if ls_config_cache[cfg] == nil then ls_config_count = ls_config_count + 1 end
    ls_config_cache[cfg] = {raw = raw, limits = limits, ds = ds}
  end
end
local single = #limits == 1
local has_overrides = single and (ls_uint(raw[9]) or 0) > 0

local out = {}
for i = 1, n do
  local label, costs_s, log_flag = ARGV[4 * i], ARGV[1 + 4 * i], ARGV[2 + 4 * i]
  local t
  if ARGV[3 + 4 * i] == '' then
    t = call_time()
  else
    t = ls_uint(ARGV[3 + 4 * i])
    if t == nil then return bad_now(ARGV[3 + 4 * i]) end
  end
  local base = KEYS[2 + i]
  local all, was_reset, remaining, limit, retry, reset, reason, name
  local one = false  -- decided on the single path: its state key is `base` itself
  -- This key's override of the single limit, if it has one (one HMGET, only on rules with any).
  local first = limits[1]
  if has_overrides then
    local o = redis.call('HMGET', cfg, 'o.capacity.' .. label, 'o.refill_amount.' .. label,
                         'o.refill_period_ns.' .. label, 'o.limit.' .. label, 'o.window_ns.' .. label)
    if o[1] or o[2] or o[3] or o[4] or o[5] then
      local op, err = ls_params({first.alg, o[1], o[2], o[3], o[4], o[5]},
                                'LSCONFIG ' .. cfg .. ' override of ' .. label .. ': ')
      if op == nil then return redis.error_reply(err) end
      op.eval, op.write = first.eval, first.write
      first = op
    end
  end
  if single and not string.find(costs_s, ',', 1, true) then
    -- One limit, one cost: no combining.
    local cost = tonumber(costs_s)
    if cost == nil then return redis.error_reply("LSARG cost must be a number, got '" .. costs_s .. "'") end
    local p, d = first, ds[1]
    p.eval(p, base, t, cost, d)
    one = true
    all, was_reset = d.allowed, d.fix and 1 or 0
    remaining, limit, retry, reset, reason, name = d.remaining, d.limit, d.retry, d.reset, d.reason, ''
  else
    local costs = {}
    for c in string.gmatch(costs_s, '[^,]+') do
      local x = tonumber(c)
      if x == nil then return redis.error_reply("LSARG cost must be a number, got '" .. c .. "'") end
      costs[#costs + 1] = x
    end
    if #costs ~= 1 and #costs ~= #limits then
      return redis.error_reply('LSARG expected 1 or ' .. #limits .. " costs, got '" .. costs_s .. "'")
    end
    all, was_reset = true, 0
    for j = 1, #limits do
      local p = j == 1 and first or limits[j]
      p.eval(p, base .. p.suffix, t, costs[#costs == 1 and 1 or j], ds[j])
      if not ds[j].allowed then all = false end
    end
    for j = 1, #limits do
      if ds[j].fix then was_reset = 1 end
    end
    -- The most restrictive limit (CompositeLimiter's combine()); higher severity wins.
    local severity = {allowed = 0, exhausted = 1, cost_above_capacity = 3, invalid_cost = 4}
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
  -- Durations are integral ns (up to 2^61, exact in a double and in an integer reply).
  out[i] = {all and 1 or 0, ls_reply_num(remaining), retry ~= nil and retry or false,
            reset, reason, ls_reply_num(limit), version, name, was_reset}
  local with_extra = log_max > 0 and log_flag ~= '1' and logged ~= nil and logged[i]
  if log_max > 0 and (log_flag == '1' or with_extra) then
    local entry = {'t', t, 'key', label, 'cost', costs_s, 'allowed', all and 1 or 0, 'level', remaining}
    -- A composite's level is one limit's: the one that refused, else the least remaining.
    if name ~= '' then entry[#entry + 1] = 'limit' entry[#entry + 1] = name end
    if with_extra and logged[i][1] then entry[#entry + 1] = 'tokens' entry[#entry + 1] = logged[i][1] end
    if with_extra and logged[i][2] then entry[#entry + 1] = 'model' entry[#entry + 1] = logged[i][2] end
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
      out[i] = {err = 'LSLOG decision log ' .. KEYS[2] .. ': ' .. added.err}
    end
  end
  if out[i].err == nil then
    -- The state writes, last. All consume or none: admitted states only when every limit
    -- admits; reset states always.
    if one then
      local d = ds[1]
      if d.write then first.write(first, base, d, t, pad) end
    else
      for j = 1, #limits do
        local p, d = j == 1 and first or limits[j], ds[j]
        if (all and d.write == 'commit') or d.write == 'fix' then p.write(p, base .. p.suffix, d, t, pad) end
      end
    end
  end
end
return out
