-- rollout_set.lua: writes a rule's staged rollout (issue 19 item 3) with compare-and-set on its
-- `seq`, rewrites the live config's stamp so the next decision reads the new share, and appends
-- the change to the rollout's audit stream, atomically (run with EVAL after common.lua).
-- KEYS[1] the rollout hash, KEYS[2] its audit stream, KEYS[3] the live config's stamp,
-- KEYS[4] the shadow hash.
-- ARGV[1] expected seq ("" = any, "0" = no rollout written yet), ARGV[2] action (start, step, pause, resume,
-- trip, complete, abort; or check: below), ARGV[3] who, ARGV[4] reason, ARGV[5] audit MAXLEN ~, ARGV[6..] field,
-- value pairs (state, share_bp, step, steps, hold_ms, guard, source, shadow_version, ...).
-- Returns {seq, at_ms}. Errors: "LSCAS ..." (another controller wrote it meanwhile).

local key, audit = KEYS[1], KEYS[2]
local raw = redis.pcall('HGET', key, 'seq')
if type(raw) == 'table' and raw.err then
  return redis.error_reply('LSCONFIG ' .. key .. ' is not a hash')
end
local seq = ls_uint(raw or '0')
if seq == nil then return redis.error_reply('LSCONFIG ' .. key .. ': seq is not an integer') end
if ARGV[1] ~= '' and ls_uint(ARGV[1]) ~= seq then
  return redis.error_reply('LSCAS ' .. key .. ' is at seq ' .. ls_int(seq) .. ', expected ' .. ARGV[1] ..
                           ' (another controller changed the rollout)')
end
local tm = redis.call('TIME')
local at = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
-- A guard check between steps: its fields and the time, nothing else (the seq, the stamp and
-- the audit stream are left as they are: a check changes no state, and one every few seconds
-- would bury the audited changes).
if ARGV[2] == 'check' then
  local fields = {'guard_checked_at', ls_int(at)}
  for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', key, unpack(fields))
  return {seq, at}
end
seq = seq + 1
local args = {'seq', ls_int(seq), 'updated_at', ls_int(at), 'updated_by', ARGV[3], 'reason', ARGV[4]}
local entry = {'seq', ls_int(seq), 'action', ARGV[2], 'by', ARGV[3], 'at', ls_int(at), 'reason', ARGV[4]}
local share = '0'
for i = 6, #ARGV, 2 do
  args[#args + 1] = ARGV[i]
  args[#args + 1] = ARGV[i + 1]
  if ARGV[i] == 'share_bp' then share = ARGV[i + 1] end
  if ARGV[i] == 'state' or ARGV[i] == 'share_bp' or ARGV[i] == 'step' or ARGV[i] == 'guard_value' then
    entry[#entry + 1] = ARGV[i]
    entry[#entry + 1] = ARGV[i + 1]
  end
end
redis.call('HSET', key, unpack(args))
-- The share is part of the config decide.lua keeps: " s<shadow version>r<share>" marks it.
local sh = redis.call('HMGET', KEYS[4], 'algorithm', 'version')
if sh[1] and ls_uint(sh[2]) then ls_bump_stamp(KEYS[3], ' s' .. sh[2] .. 'r' .. share) end
redis.call('XADD', audit, 'MAXLEN', '~', ls_uint(ARGV[5]) or 10000, '*', unpack(entry))
return {seq, at}
