-- config_set.lua: replaces a rule's config with compare-and-set on its version and appends the
-- change to the rule's audit stream, atomically (appended after common.lua).
-- KEYS[1] the config hash, KEYS[2] the audit stream, KEYS[3] the live config's stamp: a string
-- "<version> <µs>" (then the marks " f2" or " f3", " s<N>", " legacy <µs>") rewritten at every change, which decide.lua reads (with the states, in one
-- MGET) to know whether the config it keeps parsed is still the one in force. KEYS[4], given
-- only for a shadow config (KEYS[1] then is "<prefix>{R}:shadow"): the shadow's counts, deleted
-- (they count the shadow being replaced); the live stamp then only gets the shadow's mark
-- (ls_bump_stamp), so decisions read the new shadow at once. A live change keeps that mark.
-- ARGV[1] expected current version ("" = any; "0" = the rule must not exist yet; "=RAW" = the
-- stored version field is exactly RAW, "=" absent: the compare-and-set of a repair, which also
-- replaces a config whose version is not an integer),
-- ARGV[2] who, ARGV[3] reason, ARGV[4] audit MAXLEN ~, ARGV[5] action ("set", "undo"),
-- ARGV[6..] field, value pairs of the new config (without version and updated_*).
-- Returns {version, updated_at_ms}. Errors: "LSCAS ..." (version moved), "LSCONFIG ..." (the
-- new config is invalid: nothing is changed).

local cfg, audit = KEYS[1], KEYS[2]
local old_raw = redis.pcall('HGETALL', cfg)
if old_raw.err then return redis.error_reply('LSCONFIG ' .. cfg .. ' is not a hash') end
local old = {}
for i = 1, #old_raw, 2 do old[old_raw[i]] = old_raw[i + 1] end
local current = 0
local raw_cas = string.sub(ARGV[1], 1, 1) == '='
if raw_cas then
  -- A repair: compare-and-set on the stored version field as it is, readable or not.
  if (old.version or '') ~= string.sub(ARGV[1], 2) then
    return redis.error_reply('LSCAS ' .. cfg .. ' has version field ' .. tostring(old.version) ..
                             ', expected ' .. string.sub(ARGV[1], 2) .. ' (changed meanwhile: get it again)')
  end
end
if old.version then
  current = ls_uint(old.version)
  if current == nil and raw_cas then
    -- Unreadable: the next version follows the audit stream's newest entry.
    current = 0
    local last = redis.call('XREVRANGE', audit, '+', '-', 'COUNT', 1)
    if last[1] then
      local kv = last[1][2]
      for i = 1, #kv, 2 do
        if kv[i] == 'version' then current = ls_uint(kv[i + 1]) or 0 end
      end
    end
  elseif current == nil then
    return redis.error_reply('LSCONFIG ' .. cfg .. ': stored version is not an integer: ' .. old.version ..
                             ' (limitscope-cli config set --force overwrites it)')
  end
end
if ARGV[1] ~= '' and not raw_cas and ls_uint(ARGV[1]) ~= current then
  return redis.error_reply('LSCAS ' .. cfg .. ' is at version ' .. ls_int(current) ..
                           ', expected ' .. ARGV[1] .. ' (changed meanwhile: get it again)')
end

local new, fields = {}, {}
for i = 6, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  if v == nil or f == 'version' or f == 'updated_at' or f == 'updated_by' or f == 'reason' then
    return redis.error_reply('LSCONFIG field ' .. tostring(f) .. ' cannot be set directly')
  end
  new[f] = v
end
-- The same checks decide.lua makes, so a stored config is always one it accepts.
local function check(prefix, where)
  local _, err = ls_params({new[prefix .. 'algorithm'] or false, new[prefix .. 'capacity'] or false,
    new[prefix .. 'refill_amount'] or false, new[prefix .. 'refill_period_ns'] or false,
    new[prefix .. 'limit'] or false, new[prefix .. 'window_ns'] or false}, where)
  return err
end
-- Per-key overrides: "o.<field>.<key>" with the rule's algorithm, counted by "overrides".
local okeys, n_o = {}, 0
for f, _ in pairs(new) do
  if string.sub(f, 1, 2) == 'o.' then
    local key = string.match(f, '^o%.[%w_]+%.(.+)$')
    if key == nil then return redis.error_reply('LSCONFIG ' .. cfg .. ': bad override field ' .. f) end
    if not okeys[key] then
      okeys[key] = true
      n_o = n_o + 1
    end
  end
end
if n_o > 0 then
  if new.algorithm == 'composite' then
    return redis.error_reply('LSCONFIG ' .. cfg .. ': a composite rule takes no per-key overrides')
  end
  if new.overrides ~= tostring(n_o) then
    return redis.error_reply('LSCONFIG ' .. cfg .. ': overrides must be ' .. n_o ..
                             ' (the keys with o.* fields), got ' .. tostring(new.overrides))
  end
  for key, _ in pairs(okeys) do
    local _, err = ls_params({new.algorithm or false, new['o.capacity.' .. key] or false,
      new['o.refill_amount.' .. key] or false, new['o.refill_period_ns.' .. key] or false,
      new['o.limit.' .. key] or false, new['o.window_ns.' .. key] or false},
      'LSCONFIG ' .. cfg .. ' override of ' .. key .. ': ')
    if err then return redis.error_reply(err) end
  end
elseif new.overrides ~= nil and new.overrides ~= '0' then
  return redis.error_reply('LSCONFIG ' .. cfg .. ': overrides is ' .. new.overrides .. ' but no o.* fields')
end
if new.algorithm == 'composite' then
  local count = 0
  for name in string.gmatch(new.limits or '', '[^,]+') do
    if not string.match(name, '^[%w_%-]+$') then
      return redis.error_reply('LSCONFIG ' .. cfg .. ": bad limit name '" .. name .. "'")
    end
    local err = check(name .. '.', 'LSCONFIG ' .. cfg .. ' limit ' .. name .. ': ')
    if err then return redis.error_reply(err) end
    count = count + 1
  end
  if count == 0 then return redis.error_reply('LSCONFIG ' .. cfg .. ': a composite rule needs limits') end
else
  local err = check('', 'LSCONFIG ' .. cfg .. ': ')
  if err then return redis.error_reply(err) end
end

local tm = redis.call('TIME')
local at = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local version = current + 1
new.version = ls_int(version)
new.updated_at = ls_int(at)
new.updated_by = ARGV[2]
new.reason = ARGV[3]
local args = {}
for f, v in pairs(new) do args[#args + 1] = f args[#args + 1] = v end
redis.call('DEL', cfg)
redis.call('HSET', cfg, unpack(args))
-- The stamp. A rule configured before issue 18 (a config, no stamp) may still have token-bucket
-- states in the old hash form: the stamp names the instant the last of them has expired by (a
-- state's TTL is at most the time to refill the whole bucket from one hour of debt), and until
-- then decide.lua reads such a hash where it finds no string. A later change keeps the mark.
if KEYS[4] then
  ls_bump_stamp(KEYS[3], ' s' .. ls_int(version))
  redis.call('DEL', KEYS[4])
elseif KEYS[3] then
  local now_us = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
  local stamp = ls_int(version) .. ' ' .. ls_int(now_us)
  local old_stamp = redis.call('GET', KEYS[3])
  local until_us = 0
  if old_stamp then
    until_us = tonumber(string.match(old_stamp, ' legacy (%d+)$') or '0')
  elseif old.algorithm then
    -- The longest refill of any token-bucket limit of the old config, its overrides included.
    local longest = -1
    local function full_ns(cap, amount, period)
      cap, amount, period = ls_num(cap), ls_num(amount), ls_uint(period)
      if cap and amount and period and amount > 0 and cap * period / amount > longest then
        longest = cap * period / amount
      end
    end
    for f, v in pairs(old) do
      local pre = string.match(f, '^(.-)algorithm$')
      if pre and v == 'token-bucket' then
        full_ns(old[pre .. 'capacity'], old[pre .. 'refill_amount'], old[pre .. 'refill_period_ns'])
      end
      local key = old.algorithm == 'token-bucket' and string.match(f, '^o%.[%w_]+%.(.+)$')
      if key then
        full_ns(old['o.capacity.' .. key] or old.capacity, old['o.refill_amount.' .. key] or old.refill_amount,
                old['o.refill_period_ns.' .. key] or old.refill_period_ns)
      end
    end
    if longest >= 0 then until_us = now_us + math.ceil(longest / 1000) + 3600000000 + 1000 end
  end
  -- The shadow's mark (" s<N>": decide.lua reads the shadow hash) stays; a rule given its first
  -- stamp while it has a shadow gets the mark here.
  local mark = old_stamp and string.match(old_stamp, ' [sn][%dr]+') or nil
  if mark == nil and not old_stamp then
    local sh = redis.call('HMGET', string.sub(cfg, 1, -7) .. 'shadow', 'algorithm', 'version')
    if sh[1] and ls_uint(sh[2]) then mark = ' s' .. sh[2] end
  end
  -- The state format's switch (" f2" or " f3", state_format.lua) stays, before the marks.
  local format = ls_stamp_format(old_stamp)
  if format > 1 then stamp = stamp .. ' f' .. format end
  if mark then stamp = stamp .. mark end
  if until_us > now_us then stamp = stamp .. ' legacy ' .. ls_int(until_us) end
  redis.call('SET', KEYS[3], stamp)
end
local maxlen = ls_uint(ARGV[4]) or 10000
redis.call('XADD', audit, 'MAXLEN', '~', maxlen, '*', 'version', ls_int(version),
           'action', ARGV[5], 'by', ARGV[2], 'at', ls_int(at), 'reason', ARGV[3],
           'old', cjson.encode(old), 'new', cjson.encode(new))
return {version, at}
