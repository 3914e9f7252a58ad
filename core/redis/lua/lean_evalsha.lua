-- lean_evalsha.lua: the EVALSHA script's lean prelude (issue 18), between lean.lua and
-- decide.lua in that script only (the function library keeps parsed configs and has its own
-- lean path in decide.lua). A script keeps nothing between runs, so every run reads the config;
-- this prelude reads it, and decides a call the lean path can take (decide.lua's conditions:
-- one token-bucket or GCRA limit, no per-key overrides, no shadow, no old-schema states ahead,
-- plain costs only) without running decide.lua's general preamble, defining only that
-- algorithm's eval and write. Any other call goes on into decide.lua with what was read
-- (ls_pre: the header, the config fields and, when made, the MGET), so nothing is read twice.
local ls_pre = false
do
  local t, log_max, pad = ls_header(ARGV[1], false)
  if t == nil then return log_max end  -- the error reply
  ls_pre = {t = t, log_max = log_max, pad = pad, raw = false, vals = false}
  local n = #KEYS - 3
  if n >= 1 and #ARGV == 1 + n then
    local cfg = KEYS[1]
    local raw = ls_read_config(cfg)
    ls_pre.raw = raw
    local alg = not raw.err and raw[1]
    if (alg == 'token-bucket' or alg == 'gcra') and (ls_uint(raw[9]) or 0) == 0 then
      -- The stamp and the states, as decide.lua reads them for a single string-state limit.
      local vals = redis.call('MGET', unpack(KEYS, 3))
      ls_pre.vals = vals
      local stamp, version = vals[1], ls_uint(raw[7])
      local p = stamp and version and not string.find(stamp, ' s%d') and
                  t >= tonumber(string.match(stamp, ' legacy (%d+)$') or '0') and ls_params(raw, '')
      if p then
        local cs = ls_plain_costs(ARGV, n, {}, false)
        if cs then
          local format = ls_stamp_format(stamp)
          p.f2, p.f3 = format > 1, format > 2
          --@LEAN_ALGORITHMS
          return ls_lean(KEYS, ARGV, n, t, p, ls_decision(), version, vals, cs, pad, cfg, #cfg - 3)
        end
      end
    end
  end
end
