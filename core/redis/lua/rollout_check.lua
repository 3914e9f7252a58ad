-- rollout_check.lua: records a staged rollout's guard value between steps (issue 19 item 3),
-- with compare-and-set on the rollout's `seq`: a controller that read the state before a pause,
-- an abort or another controller's write does not write its value over theirs. It leaves `seq`
-- as it is (a check changes no state), the stamp (no decision changes) and the audit stream
-- (steps, trips and the rest carry the value there; a check every few seconds would bury them).
-- Run with EVAL after common.lua.
-- KEYS[1] the rollout hash. ARGV[1] expected seq, ARGV[2] the value ("" = no sample).
-- Returns the time it was written (ms). Errors: "LSCAS ..." (the rollout moved meanwhile).

local key = KEYS[1]
local raw = redis.pcall('HGET', key, 'seq')
if type(raw) == 'table' and raw.err then
  return redis.error_reply('LSCONFIG ' .. key .. ' is not a hash')
end
local seq = ls_uint(raw or '0')
if seq == nil then return redis.error_reply('LSCONFIG ' .. key .. ': seq is not an integer') end
if ls_uint(ARGV[1]) ~= seq then
  return redis.error_reply('LSCAS ' .. key .. ' is at seq ' .. ls_int(seq) .. ', expected ' .. ARGV[1] ..
                           ' (another controller changed the rollout)')
end
local tm = redis.call('TIME')
local at = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
redis.call('HSET', key, 'guard_value', ARGV[2], 'guard_checked_at', ls_int(at))
return at
