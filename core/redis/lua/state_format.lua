-- state_format.lua: the token-bucket state format a rule's decisions write (docs/redis-state.md,
-- rolling upgrades). Format 2 carries the key's TTL end (a write keeps the TTL); deciders of the
-- version before it read only format 1 and reset a format-2 state as corrupt, so decisions write
-- format 2 only once the operator has told them every decider of the rule reads it: the mark
-- " f2" in the rule's config stamp, right after "<version> <µs>" (before the shadow and legacy
-- marks). decide.lua reads the stamp with the states in its one MGET and parses the config again
-- when the stamp changes, so the switch is in force at the rule's next decision at no cost per
-- decision. config_set.lua keeps the mark; a config_set.lua of the version before drops it
-- (back to format 1, the safe way).
-- Run with EVAL after common.lua (not on the decision path). KEYS[1] the rule's config stamp.
-- ARGV[1] "" (only read), "1" or "2". Returns the format in force after the call, 1 or 2.
-- Errors: "LSCONFIG ..." (no stamp: a rule without a config, or not changed since before issue
-- 18; or a stamp limitscope did not write).

local key, want = KEYS[1], ARGV[1]
if want ~= '' and want ~= '1' and want ~= '2' then
  return redis.error_reply("LSARG the state format must be 1 or 2, got '" .. want .. "'")
end
local stamp = redis.pcall('GET', key)
if type(stamp) == 'table' and stamp.err then return redis.error_reply('LSCONFIG ' .. key .. ' is not a string') end
if not stamp then
  return redis.error_reply('LSCONFIG no config stamp at ' .. key ..
                           ' (limitscope-cli config set writes one with the rule\'s config)')
end
local head, rest = string.match(stamp, '^(%d+ %d+)(.*)$')
if head == nil then return redis.error_reply("LSCONFIG " .. key .. ": not a config stamp: '" .. stamp .. "'") end
local has = string.sub(rest, 1, 3) == ' f2'
if want == '' or (want == '2') == has then return has and 2 or 1 end
if has then rest = string.sub(rest, 4) end
redis.call('SET', key, head .. (want == '2' and ' f2' or '') .. rest)
return want == '2' and 2 or 1
