-- state_format.lua: the state format a rule's decisions write (docs/redis-state.md, rolling
-- upgrades). Format 2: token-bucket states carry the key's TTL end (a write keeps the TTL);
-- format 3: GCRA states too (24 bytes instead of the TAT's text). Deciders of the version before
-- a format read only the formats before it and reset a newer state as corrupt, so decisions write
-- a format only once the operator has told them every decider of the rule reads it: the mark
-- " f2" or " f3" in the rule's config stamp, right after "<version> <µs>" (before the shadow and
-- legacy marks). decide.lua reads the stamp with the states in its one MGET and parses the config again
-- when the stamp changes, so the switch is in force at the rule's next decision at no cost per
-- decision. config_set.lua keeps the mark; a config_set.lua of the version before drops it
-- (back to format 1, the safe way).
-- Run with EVAL after common.lua (not on the decision path). KEYS[1] the rule's config stamp.
-- ARGV[1] "" (only read), "1", "2" or "3". Returns the format in force after the call.
-- Errors: "LSCONFIG ..." (no stamp: a rule without a config, or not changed since before issue
-- 18; or a stamp limitscope did not write).

local key, want = KEYS[1], ARGV[1]
if want ~= '' and want ~= '1' and want ~= '2' and want ~= '3' then
  return redis.error_reply("LSARG the state format must be 1, 2 or 3, got '" .. want .. "'")
end
local stamp = redis.pcall('GET', key)
if type(stamp) == 'table' and stamp.err then return redis.error_reply('LSCONFIG ' .. key .. ' is not a string') end
if not stamp then
  return redis.error_reply('LSCONFIG no config stamp at ' .. key ..
                           ' (limitscope-cli config set writes one with the rule\'s config)')
end
local head, rest = string.match(stamp, '^(%d+ %d+)(.*)$')
if head == nil then return redis.error_reply("LSCONFIG " .. key .. ": not a config stamp: '" .. stamp .. "'") end
local mark = string.sub(rest, 1, 3)
local has = (mark == ' f2' and 2) or (mark == ' f3' and 3) or 1
if want == '' or tonumber(want) == has then return has end
if has > 1 then rest = string.sub(rest, 4) end
redis.call('SET', key, head .. (want ~= '1' and ' f' .. want or '') .. rest)
return tonumber(want)
