-- fast.lua: the function library's fast path (issue 18, third pass), pasted at decide.lua's
-- first lines in the library only (the EVALSHA script has its lean prelude instead). A call of
-- one plain-cost decision on a kept token-bucket config (entry.tb: decide.lua's lean
-- conditions, token bucket, its parameters copied into the entry) is decided here, before
-- anything else of decide.lua runs: TIME (or the test header), one MGET of the stamp and the
-- state, ls_tb_admit's checks and arithmetic written out in this chunk (the same expressions
-- in the same order, so the same doubles), the short record and ls_tb_store's write. Counted
-- by callgrind, a Lua function call, a global name (in a function library every global is two
-- table lookups: the globals table misses, its metatable's __index answers) and a table field
-- read each cost about as much as an arithmetic line; so redis.call and struct's functions are
-- library locals (captured at the first config parse: the library's top level has no `redis.call`
-- or `struct`), the limit's numbers are fields of the entry itself, and nothing here calls a
-- Lua function. A call this path declines goes on into decide.lua: before TIME, unchanged; after
-- it, with its instant (t_call), and, the stamp read being the kept one, straight to ls_lean
-- (which then does not try ls_tb_admit again). A kept GCRA config in state format 3 (entry.gc,
-- issue 18, fourth pass) is decided the same way: ls_gcra_run's admission written out here.
if #KEYS == 4 and #ARGV == 2 then
  local e = ls_config_cache[KEYS[1]]
  if e and (e.tb or e.gc) then
    -- The cost: its text converted once per kept config (entry.cnum, at most 64), as the lean
    -- path does (tonumber is a strtod).
    local a = ARGV[2]
    local cost = e.cnum[a]
    if cost == nil then
      cost = tonumber(a)
      if cost ~= nil and e.ncnum < 64 then e.cnum[a], e.ncnum = cost, e.ncnum + 1 end
    end
    if cost then
      local h, t = ARGV[1], 0
      if h == '' then
        -- ls_time_us: TIME's seconds converted once per second (tonumber is a strtod).
        local tm = ls_call('TIME')
        local s = tm[1]
        if s ~= ls_sec then ls_sec, ls_sec_us = s, s * 1000000 end
        t = ls_sec_us + tm[2]
      else
        -- "<µs>" and "<µs>,<log MAXLEN>,<pad ms>" (test mode), "by:<deadline µs>" (TIME): the
        -- header as decide.lua reads it, its error reply included.
        t, log_max, pad = ls_header(h, ls_seconds)
        if t == nil then return log_max end
      end
      t_call = t
      if t >= e.legacy_until then
        local skey = KEYS[4]
        local vals = ls_call('MGET', KEYS[3], skey)
        if vals[1] == e.stamp then
          -- An admission this path makes: its record, the state's three fields (a, b, x as
          -- struct '<ddd' holds them; x the key's exp) and the time until it is idle, ns.
          -- No record: the call goes on to ls_lean.
          local rec, a, b, x, idle_ns = nil, 0, 0, 0, 0
          local raw, C = vals[2], e.C
          if e.gc then
            -- ls_gcra_run's admission (lean.lua), the same expressions in the same order: a
            -- 24-byte state (format 3) or none, a cost in (0, C], admitted with at least the
            -- pressure threshold left. A refusal and anything else go to ls_lean.
            local tat_us, rem, ok = t, 0, true
            if raw then
              if #raw == 24 then
                tat_us, rem, x = ls_unpack('<ddd', raw)
                ok = tat_us >= 0 and tat_us <= 9007199254740992 and tat_us % 1 == 0 and rem >= 0 and rem < 1000 and
                       rem % 1 == 0 and x >= 0 and x % 1 == 0
              else
                ok = false
              end
            end
            if ok and cost > 0 and cost <= C then
              local t_ns, limit_ns = e.T, e.L
              local cost_ns = t_ns
              if cost ~= 1 then
                cost_ns = cost * t_ns
                if cost_ns >= 2305843009213693952 then
                  cost_ns = 2305843009213693952
                else
                  local f = cost_ns - cost_ns % 1
                  if cost_ns - f >= 0.5 then cost_ns = f + 1 else cost_ns = f end
                end
                if cost_ns < 1 then cost_ns = 1 end
              end
              local backlog = (tat_us - t) * 1000 + rem
              if backlog < 0 then backlog = 0 end
              local nb = backlog + cost_ns
              local l = (limit_ns - nb) / t_ns
              if C < l then l = C end
              if nb <= limit_ns and l >= e.pmin then
                local r = nb % 1000
                rec, a, b, idle_ns = ls_pack('<dddd', l, C, nb, e.version), t + (nb - r) / 1000, r, nb
              end
            end
          else
            local tokens, last, ok = C, t, true
            if raw then
              local len = #raw
              if len == 24 then
                tokens, last, x = ls_unpack('<ddd', raw)
              elseif len == 16 then
                tokens, last = ls_unpack('<dd', raw)
              else
                ok = false
              end
              -- ls_tb_admit's checks: anything eval might reset goes the general way.
              if ok and not (tokens >= e.tmin and tokens <= C and last >= 0 and last % 1 == 0 and
                             last <= 9007199254740992 and (last - t) * 1000 <= e.ahead and x >= 0 and
                             x % 1 == 0) then
                ok = false
              end
            end
            if ok then
              local level = tokens
              if t > last then level = tokens + ((t - last) * 1000) * e.amount / e.period end
              if not (level < C) then level = C end
              local rem = level - cost
              if cost > 0 and cost <= C and level >= cost and rem >= e.pmin then
                local ns = (C - rem) * e.ppa
                local reset = 0
                if ns > 0 then
                  if ns >= 2305843009213693952 then
                    reset = 2305843009213693952
                  else
                    reset = ns - ns % 1
                    if reset < ns then reset = reset + 1 end
                  end
                end
                b = last
                if t > last then b = t end
                rec, a, idle_ns = ls_pack('<dddd', rem, C, reset, e.version), rem, (b - t) * 1000 + reset
              end
            end
          end
          if rec then
            -- ls_tb_store's write (ls_ttl_ms of idle_ns plus the pad), with the TTL as text:
            -- Redis prints a number argument with %.17g (~2k instructions); the texts of the
            -- TTLs written are kept (ls_ttl_text).
            local ms = idle_ns / 1000000
            if not (ms > 1) then
              ms = 1
            else
              local f = ms - ms % 1
              if f < ms then ms = f + 1 else ms = f end
            end
            ms = ms + pad
            if e.f2 then
              local now_ms = (t - t % 1000) / 1000
              if x >= now_ms + ms then
                ls_call('SET', skey, ls_pack('<ddd', a, b, x), 'KEEPTTL')
                return rec
              end
              ms = ms + 1000
              raw = ls_pack('<ddd', a, b, now_ms + ms - 1)
            else
              raw = ls_pack('<dd', a, b)
            end
            local tx = ls_ttl_text[ms]
            if not tx then
              if ls_ttl_count >= 1024 then ls_ttl_text, ls_ttl_count = {}, 0 end
              tx = string.format('%d', ms)
              ls_ttl_text[ms], ls_ttl_count = tx, ls_ttl_count + 1
            end
            ls_call('SET', skey, raw, 'PX', tx)
            return rec
          end
          local cs = e.costs
          cs[1] = cost
          return ls_lean(KEYS, ARGV, 1, t, e.limits[1], e.ds[1], e.version, vals, cs, pad, KEYS[1],
                         #KEYS[1] - 3, true)
        end
      end
    end
  end
end
