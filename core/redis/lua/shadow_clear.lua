-- shadow_clear.lua: removes a rule's shadow config with compare-and-set on its version and
-- appends the change to the shadow's audit stream, atomically. What stays is a tombstone
-- (version, updated_*, no algorithm), so the shadow's versions keep rising across a clear and
-- an old --expect-version never matches a later shadow. A hash without `algorithm` is no shadow.
-- Run with EVAL after common.lua (not part of the function library: it is not on the decision
-- path). KEYS[1] the shadow hash, KEYS[2] its audit stream, KEYS[3] the live config's stamp (gets
-- the shadow's mark, so decisions stop evaluating the shadow at once), KEYS[4] the shadow's
-- counts (deleted).
-- ARGV[1] expected current version ("" = any), ARGV[2] who, ARGV[3] reason, ARGV[4] MAXLEN ~.
-- Returns {version, updated_at_ms}. Errors: "LSCAS ..." (version moved), "LSNOSHADOW ..."
-- (there is no shadow to clear), "LSCONFIG ..." (the hash is not one limitscope wrote).

local key, audit = KEYS[1], KEYS[2]
local raw = redis.pcall('HGETALL', key)
if raw.err then return redis.error_reply('LSCONFIG ' .. key .. ' is not a hash') end
local old = {}
for i = 1, #raw, 2 do old[raw[i]] = raw[i + 1] end
local current = tonumber(old.version or '0')
if current == nil or current < 0 or current ~= math.floor(current) then
  return redis.error_reply('LSCONFIG ' .. key .. ': stored version is not an integer: ' .. tostring(old.version))
end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then
  return redis.error_reply('LSCAS ' .. key .. ' is at version ' .. string.format('%d', current) ..
                           ', expected ' .. ARGV[1] .. ' (changed meanwhile: show it again)')
end
if old.algorithm == nil then
  return redis.error_reply('LSNOSHADOW ' .. key .. ': there is no shadow config to clear')
end
local tm = redis.call('TIME')
local at = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local version = string.format('%d', current + 1)
local at_s = string.format('%d', at)
redis.call('DEL', key)
ls_bump_stamp(KEYS[3], ' n' .. version)
redis.call('DEL', KEYS[4])
redis.call('HSET', key, 'version', version, 'updated_at', at_s, 'updated_by', ARGV[2], 'reason', ARGV[3])
local maxlen = tonumber(ARGV[4]) or 10000
redis.call('XADD', audit, 'MAXLEN', '~', maxlen, '*', 'version', version, 'action', 'clear',
           'by', ARGV[2], 'at', at_s, 'reason', ARGV[3], 'old', cjson.encode(old), 'new', '{}')
return {current + 1, at}
