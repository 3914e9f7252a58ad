#!/usr/bin/env bash
# What each piece of a lean token-bucket decision costs inside redis-server, beside the
# reference script's pieces (issue 18): a function library made of the limiter's own Lua
# (core/redis/lua: common.lua, pressure.lua, lean.lua, token_bucket.lua) plus one function
# per piece that runs it N times in a loop. Each piece is timed by the server's own CPU
# (INFO cpu, main thread, user + sys) around its FCALL, best of 3, so a loaded machine inflates
# it less than wall time would (redis-server has no Lua profiler). Prints ns per run of the
# piece; the loop's own cost is the `empty` row.
#
#   bench/redis_lua_pieces.sh [N]     (default N = 100000)
#   needs: redis-server and redis-cli (Debian package "redis-server")
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LUA="$ROOT/core/redis/lua"
N="${1:-100000}"
command -v redis-server >/dev/null || { echo "redis_lua_pieces.sh: redis-server not found" >&2; exit 2; }

WORK="$(mktemp -d)"
REDIS_PID=""
cleanup() {
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=private_redis.sh
source "$ROOT/bench/private_redis.sh"
start_private_redis "$WORK" || { echo "redis_lua_pieces.sh: no redis-server could be started" >&2; exit 1; }
PORT="$REDIS_PORT"
R=(redis-cli -p "$PORT")

# The library: the limiter's helpers and token bucket as the function library defines them
# (token_bucket.lua without its last line, `return eval, write`), then the pieces.
{
  echo "#!lua name=lspieces"
  cat "$LUA/common.lua" "$LUA/pressure.lua" "$LUA/lean.lua"
  sed '$d' "$LUA/token_bucket.lua"
  cat <<'PIECES'
local P, D, RAW
local T = 1700000000500000
local function piece(name, body)
  redis.register_function(name, function(KEYS, ARGV)
    if not P then
      P = ls_params({'token-bucket', '100', '1', '1000000000'}, '')
      P.eval, P.write = eval, write
      P.f2 = true  -- a rule switched to state format 2 (docs/redis-state.md)
      D = ls_decision()
      RAW = struct.pack('<ddd', 50, 1700000000000000, 0)  -- format 2, TTL's end unknown
    end
    for i = 1, tonumber(ARGV[1]) do body(KEYS, i) end
    return 1
  end)
end
-- KEYS[1]: a state key, KEYS[2]: a stamp key.
piece('empty', function(K, i) end)
piece('lua_eval', function(K, i) P.eval(P, K[1], T, 1, D, RAW, false) end)
piece('lua_record', function(K, i)
  ls_record(true, 'allowed', 0, 0, 49.5, 100, 0, 500000000, 3, '')
end)
piece('lua_pack_state', function(K, i) P.write(P, K[1], D, T, 0, true) end)
piece('lua_tonumber', function(K, i) tonumber('1') end)
piece('call_time', function(K, i) redis.call('TIME') end)
piece('call_mget_2', function(K, i) redis.call('MGET', K[2], K[1]) end)
piece('call_set_px', function(K, i) redis.call('SET', K[1], RAW, 'PX', 5000) end)
piece('call_set_keepttl', function(K, i) redis.call('SET', K[1], RAW, 'KEEPTTL') end)
piece('ref_hmget', function(K, i) redis.call('HMGET', K[1] .. 'h', 'tokens', 'ts') end)
piece('ref_hmset', function(K, i) redis.call('HMSET', K[1] .. 'h', 'tokens', 49.5, 'ts', 1700000000500) end)
piece('ref_pexpire', function(K, i) redis.call('PEXPIRE', K[1] .. 'h', 5000) end)
-- The whole decision body on one key: ours (TIME, MGET, eval, record, SET PX), and the
-- reference script's (bench-redis's kReference: HMGET, HMSET, PEXPIRE on a client clock).
piece('decision_body', function(K, i)
  local tm = redis.call('TIME')
  local t = tm[1] * 1000000 + tm[2]
  local raw = redis.call('MGET', K[2], K[1])[2]
  if not raw or (#raw ~= 24 and #raw ~= 16) then raw = RAW end
  P.eval(P, K[1], t, tonumber('1'), D, raw, false)
  ls_record(D.allowed, D.reason, D.fix and 1 or 0, 0, D.remaining, D.limit, D.retry, D.reset, 3, '')
  if D.write then P.write(P, K[1], D, t, 0, false) end
end)
piece('reference_body', function(K, i)
  local cap, per_ms, now = tonumber('100'), tonumber('1'), tonumber('1700000000500')
  local v = redis.call('HMGET', K[1] .. 'h', 'tokens', 'ts')
  local tokens = tonumber(v[1]) or cap
  local ts = tonumber(v[2]) or now
  tokens = math.min(cap, tokens + math.max(0, now - ts) * per_ms)
  if tokens >= 1 then tokens = tokens - 1 end
  redis.call('HMSET', K[1] .. 'h', 'tokens', tokens, 'ts', now)
  redis.call('PEXPIRE', K[1] .. 'h', math.ceil((cap - tokens) / per_ms) + 1)
end)
PIECES
} > "$WORK/lib.lua"
"${R[@]}" -x FUNCTION LOAD < "$WORK/lib.lua" > /dev/null

cpu() { "${R[@]}" INFO cpu | tr -d '\r' | awk -F: '/used_cpu_(sys|user)_main_thread:/ {s += $2} END {printf "%.6f\n", s}'; }
echo "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), $N runs per piece, best of 3; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %10s\n' piece 'ns/run'
for fn in empty lua_eval lua_record lua_pack_state lua_tonumber call_time call_mget_2 call_set_px \
          call_set_keepttl ref_hmget ref_hmset ref_pexpire decision_body reference_body; do
  best=""
  for _ in 1 2 3; do
    a="$(cpu)"
    "${R[@]}" FCALL "$fn" 2 'bench{r}:s:k' 'bench{r}:stamp' "$N" > /dev/null
    b="$(cpu)"
    v="$(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN {printf "%.0f", (b - a) * 1e9 / n}')"
    if [ -z "$best" ] || [ "$v" -lt "$best" ]; then best="$v"; fi
  done
  printf '%-18s %10s\n' "$fn" "$best"
done
