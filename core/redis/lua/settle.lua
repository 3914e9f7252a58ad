-- settle.lua: corrects one key's token-bucket limit after the fact, in a call of its own
-- (decide.lua can also carry a settlement with the key's next decision) (appended after common.lua;
-- docs/redis-schema.md). A gateway admits a request on its token estimate, then learns what
-- the upstream really used: the difference is refunded (delta < 0) or charged (delta > 0),
-- never above capacity; a charge may leave a debt (a level below zero) down to one hour of
-- refill, exactly as TokenBucket::settle (core/limiter/token_bucket.h) does in-process.
-- KEYS[1] the rule's config hash, KEYS[2] the limit's state key (a composite's ":<name>").
-- ARGV[1] the limit's name in a composite rule ('' = the rule's only limit), ARGV[2] delta in
-- tokens (actual minus estimated), ARGV[3] now in µs ('' = the server's TIME), ARGV[4] ms
-- added to the TTL (test mode only).
-- Reply: the level after the correction (a number), or false when nothing was changed: a
-- refund to a state that expired (it is full) or that is unreadable (the next decision
-- resets it).

local name, delta = ARGV[1], tonumber(ARGV[2])
if delta == nil or delta ~= delta or delta == math.huge or delta == -math.huge then
  return redis.error_reply("LSARG delta must be a finite number, got '" .. ARGV[2] .. "'")
end
local t
if ARGV[3] == '' then
  local tm = redis.call('TIME')
  t = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
else
  t = ls_uint(ARGV[3])
  if t == nil then
    return redis.error_reply('LSARG now must be an integer count of microseconds >= 0, got ' .. ARGV[3])
  end
end
local pad = ls_uint(ARGV[4]) or 0

local cfg = KEYS[1]
local prefix = name == '' and '' or name .. '.'
local f = redis.pcall('HMGET', cfg, prefix .. 'algorithm', prefix .. 'capacity', prefix .. 'refill_amount',
                      prefix .. 'refill_period_ns', prefix .. 'limit', prefix .. 'window_ns')
if f.err then return redis.error_reply('LSCONFIG ' .. cfg .. ' is not a hash') end
if not f[1] then
  return redis.error_reply('LSCONFIG ' .. cfg .. (name == '' and '' or ' has no limit ' .. name) ..
                           ': nothing to settle')
end
local where = 'LSCONFIG ' .. cfg .. (name == '' and ': ' or ' limit ' .. name .. ': ')
if f[1] ~= 'token-bucket' then
  return redis.error_reply(where .. 'settle applies to token-bucket limits only, got ' .. tostring(f[1]))
end
local p, err = ls_params(f, where)
if p == nil then return redis.error_reply(err) end
if delta == 0 then return false end

local C, npu = p.capacity, p.period / p.amount
local debt = p.amount * 3600000000000 / p.period  -- TokenBucket::max_debt, the same expression
local skey = KEYS[2]
-- The state: a 24-byte string (token_bucket.lua; x: the end of the key's TTL), the 16-byte one
-- without it, or a hash {tokens, ts} written before issue 18 (x = 0: the TTL is set anew).
local tokens, last, x, f2 = nil, nil, 0, false
local raw = redis.pcall('GET', skey)
if type(raw) == 'table' and raw.err then
  raw = redis.pcall('HMGET', skey, 'tokens', 'ts')
  if raw.err or not (raw[1] or raw[2]) then return false end
  tokens, last = ls_num(raw[1]), ls_uint(raw[2])
elseif raw then
  if #raw == 24 then
    tokens, last, x = struct.unpack('<ddd', raw)
    f2 = true
  elseif #raw == 16 then
    tokens, last = struct.unpack('<dd', raw)
  else
    return false
  end
  if tokens ~= tokens or tokens == math.huge or not (last >= 0) or last % 1 ~= 0 or not (x >= 0) or
     x % 1 ~= 0 then
    return false
  end
end
if raw then
  if tokens == nil or tokens < -debt or last == nil or (last - t) * 1000 > C * npu then return false end
else
  if delta < 0 then return false end  -- expired: full, and a refund changes nothing
  tokens, last = C, t
end
-- The level now, as token_bucket.lua computes it, then the correction.
local level = tokens
if t > last then level = tokens + ((t - last) * 1000) * p.amount / p.period end
if not (level < C) then level = C end
level = level - delta
if level < -debt then level = -debt end
if level > C then level = C end
local ts = last
if t > ts then ts = t end
local full_ns = (ts - t) * 1000 + ls_ceil_ns((C - level) * npu)
-- In the format the key holds (a missing or hash state: format 1, which every decider reads;
-- the rule's next decision writes format 2 where its stamp allows it).
ls_tb_store(skey, level, ts, x, t, ls_ttl_ms(full_ns) + pad, f2)
return ls_reply_num(level)
