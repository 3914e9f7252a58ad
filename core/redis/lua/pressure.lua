-- pressure.lua: the rule's pressure index (issue 22; docs/redis-schema.md), appended after
-- common.lua. "<prefix>{R}:pressure" is a sorted set of the rule's limited keys that a
-- decision left below LS_PRESSURE_BELOW of their capacity (limit), scored by a µs instant at
-- or after the one they will be full again, so the dashboard finds the emptiest keys with one
-- ZRANGEBYSCORE instead of a SCAN of the keyspace. decide.lua compares each written level
-- with the threshold (the only cost of an ordinary decision) and calls ls_pressure_score only
-- below it. Neither function captures anything (a script run would pay for the upvalues).

-- A written level below this fraction of p.max puts the key in the index.
local LS_PRESSURE_BELOW = 0.1

-- The score decision d's write of limit p at t (µs) needs in the index, or false when the
-- index already holds one that is late enough. Called only when d.remaining is below the
-- threshold. Scores are whole seconds (µs), the second after the full-again instant: while a
-- key stays under pressure, a token bucket's or GCRA's full-again instant only moves by the
-- cost each admission takes (refill does not move it), so the entry is rewritten about once
-- per second of debt added, not at every decision. `w`: the write ('commit' or 'fix');
-- `costs_s`, `j`: the decision's costs argument and the limit's place (its cost, parsed here
-- only).
local function ls_pressure_score(p, d, t, w, costs_s, j)
  local full_us = t + d.reset / 1000
  local q = math.floor(full_us / 1000000)
  if w == 'commit' then
    local c
    if string.find(costs_s, ',', 1, true) then
      local k = 0
      for x in string.gmatch(costs_s, '[^,]+') do
        k = k + 1
        if k == j then c = tonumber(x) end
      end
    else
      c = tonumber(costs_s)
    end
    -- Below the threshold before this decision too: an earlier write put the key in (its
    -- entry is still there unless the size bound evicted it).
    if c and d.remaining + c < p.max * LS_PRESSURE_BELOW then
      if p.alg == 'token-bucket' or p.alg == 'gcra' then
        -- The full-again instant before this cost was taken, in the same second: the entry
        -- written then is late enough.
        if math.floor((full_us - c * (p.period / p.amount) / 1000) / 1000000) == q then return false end
      elseif p.alg == 'fixed-window' then
        return false  -- the same window (a new one starts full): same full-again instant
      end
    end
  end
  return (q + 1) * 1000000
end

-- Writes `label`'s entry in the index of the rule whose config hash is `cfg` (same hash tag,
-- so same slot). A key new to the index also drops the entries of keys full again by t and
-- keeps the 10,000 latest (the emptiest), so the set stays bounded. pcall: a refused write
-- (an ACL, a key of another type) costs the dashboard a key, never the decision already made.
local function ls_pressure_add(cfg, label, score, t)
  local idx = string.sub(cfg, 1, -7) .. 'pressure'  -- "<prefix>{R}:config" → ":pressure"
  if redis.pcall('ZADD', idx, score, label) == 1 then
    redis.pcall('ZREMRANGEBYSCORE', idx, '-inf', t)
    redis.pcall('ZREMRANGEBYRANK', idx, 0, -10001)
  end
end
