#!/usr/bin/env bash
# Gateway throughput with wrk against the built-in mock upstream: the limiter off, the
# in-process limiter, and the Redis limiter (a private redis-server on a free port; skipped
# when redis-server is missing) three times: "redis-settle-each" settles every request with a
# call of its own (--redis-settle-delay 0, decisions coalesced), "redis-alone" sends every
# decision alone (--redis-batch-window 0, settlements riding on decisions), "redis" coalesces
# concurrent decisions into batched round trips (the default window, 500us) once every Redis
# connection is busy and lets settlements ride (the defaults), "redis-4-in-flight" coalesces
# once 4 batches of the rule are in flight (--redis-batches-in-flight 4, the default before
# 2026-12-02). All interleaved over several rounds in one run; prints
# requests/s and p99 per round, the medians, each limiter's throughput cost (target for
# in-process: <= 5%), the Redis gateways' mean decisions per round trip, and the limiter's
# script calls per request counted on the server (INFO commandstats: decisions + settle calls).
#
#   bench/gateway_wrk.sh [BUILD_DIR]      (default: build)
#   needs: wrk (Debian package "wrk"), curl, limitscope-gateway built; redis-server and
#          redis-cli (Debian package "redis-server") for the Redis rows
#   env: DURATION=5s CONNECTIONS=32 WRK_THREADS=1 GATEWAY_THREADS=64 ROUNDS=3 KEYS=1000
#        MOCK_LATENCY=0
# Every request is admitted (a policy with very large limits) and keys rotate over KEYS API
# keys, so both runs do the same work apart from the limiter's decisions and headers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
GATEWAY="$BUILD/app/limitscope-gateway"
DURATION="${DURATION:-5s}"
CONNECTIONS="${CONNECTIONS:-32}"
WRK_THREADS="${WRK_THREADS:-1}"
GATEWAY_THREADS="${GATEWAY_THREADS:-64}"
ROUNDS="${ROUNDS:-3}"
KEYS="${KEYS:-1000}"
MOCK_LATENCY="${MOCK_LATENCY:-0}"

command -v wrk >/dev/null || { echo "gateway_wrk.sh: wrk not found (apt-get install wrk)" >&2; exit 2; }
command -v curl >/dev/null || { echo "gateway_wrk.sh: curl not found (apt-get install curl)" >&2; exit 2; }
[ -x "$GATEWAY" ] || { echo "gateway_wrk.sh: $GATEWAY not built (cmake --build $BUILD --target limitscope-gateway)" >&2; exit 2; }

WORK="$(mktemp -d)"
GW_PID=""
REDIS_PID=""
cleanup() {
  [ -n "$GW_PID" ] && kill "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

cat > "$WORK/policy.json" <<'JSON'
{
  "default_tier": "bench",
  "tiers": {
    "bench": { "requests": { "algorithm": "token-bucket", "capacity": 1e12, "refill": "1e9/s" },
               "llm_tokens": { "algorithm": "token-bucket", "capacity": 1e15, "refill": "1e12/s" },
               "daily_quota": 1e15 }
  },
  "models": { "gpt-4.1": { "cost": 8, "price_per_million_tokens": 8 } }
}
JSON

cat > "$WORK/post.lua" <<LUA
local n = 0
local keys = $KEYS
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local body = '{"model":"gpt-4.1","max_tokens":64,"messages":[{"role":"user","content":"Say hello to the benchmark."}]}'
request = function()
  n = n + 1
  local headers = { ["Content-Type"] = "application/json",
                    ["Authorization"] = "Bearer bench-key-" .. (n % keys) }
  return wrk.format("POST", "/v1/chat/completions", headers, body)
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT rps=%.1f p99_ms=%.3f non2xx=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA

MODES=(off in-process)
REDIS_URL=""
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  # A private server on a random free port.
  # shellcheck source=private_redis.sh
  source "$ROOT/bench/private_redis.sh"
  if start_private_redis "$WORK"; then
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
    MODES+=(redis-settle-each redis-alone redis-4-in-flight redis)
  fi
fi
[ -n "$REDIS_URL" ] || echo "gateway_wrk.sh: no redis-server could be started: the Redis limiter is not measured" >&2

# run_one MODE ROUND -> prints "rps p99_ms"
run_one() {
  local mode="$1"
  local extra=()
  [ "$mode" = redis ] && extra=(--redis "$REDIS_URL")
  [ "$mode" = redis-alone ] && extra=(--redis "$REDIS_URL" --redis-batch-window 0)
  [ "$mode" = redis-settle-each ] && extra=(--redis "$REDIS_URL" --redis-settle-delay 0)
  [ "$mode" = redis-4-in-flight ] && extra=(--redis "$REDIS_URL" --redis-batches-in-flight 4)
  local limiter="$mode"
  case "$mode" in redis*) limiter=redis ;; esac
  # A fresh file per run: the background redirection truncates it only once the child runs,
  # and the previous run's address must never be read.
  local out_file="$WORK/gw.$2.$mode.out"
  "$GATEWAY" --listen 127.0.0.1:0 --policy "$WORK/policy.json" --mock-upstream \
    --mock-latency "$MOCK_LATENCY" --limiter "$limiter" --threads "$GATEWAY_THREADS" "${extra[@]}" \
    > "$out_file" 2> "$WORK/gw.err" &
  GW_PID=$!
  local line=""
  for _ in $(seq 1 100); do
    line="$(head -n 1 "$out_file" 2>/dev/null || true)"
    [ -n "$line" ] && break
    sleep 0.05
  done
  local addr="${line#listening on }"
  [ -n "$addr" ] && [ "$addr" != "$line" ] || { echo "gateway did not start: $(cat "$WORK/gw.err")" >&2; exit 1; }
  local out calls_before=0
  [ -n "$REDIS_URL" ] && calls_before="$(script_calls)"
  out="$(wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$DURATION" -s "$WORK/post.lua" "http://$addr" | grep '^RESULT')"
  # Decisions per Redis round trip over the run (limitscope_redis_batch_size: sum / count).
  if [ "$mode" != off ] && [ "$mode" != in-process ]; then
    curl -s "http://$addr/metrics" | awk '/^limitscope_redis_batch_size_sum/ {s=$2} /^limitscope_redis_batch_size_count/ {c=$2}
      END {if (c > 0) printf "%.2f\n", s / c}' >> "$WORK/batch.$mode"
  fi
  local served
  served="$(curl -s "http://$addr/metrics" | awk '/^limitscope_gateway_responses_total/ {n += $2} END {printf "%d\n", n}')"
  kill "$GW_PID"; wait "$GW_PID" 2>/dev/null || true; GW_PID=""
  # Script calls per answered request, after the gateway stopped (it sends the settlements
  # still waiting then).
  if [ "$mode" != off ] && [ "$mode" != in-process ] && [ "$served" -gt 0 ]; then
    awk -v c="$(( $(script_calls) - calls_before ))" -v n="$served" 'BEGIN {printf "%.3f\n", c / n}' >> "$WORK/calls.$mode"
  fi
  local rps p99 non2xx errors
  rps="$(sed -n 's/.*rps=\([0-9.]*\).*/\1/p' <<<"$out")"
  p99="$(sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p' <<<"$out")"
  non2xx="$(sed -n 's/.*non2xx=\([0-9]*\).*/\1/p' <<<"$out")"
  errors="$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$out")"
  if [ "$non2xx" != "0" ] || [ "$errors" != "0" ]; then
    echo "gateway_wrk.sh: $mode: $non2xx non-2xx answers, $errors socket errors" >&2
  fi
  echo "$rps $p99"
}

# The limiter's script calls the server ran so far (FCALL, or EVALSHA without Functions).
script_calls() {
  redis-cli -u "$REDIS_URL" info commandstats |
    awk -F'[:=,]' '/^cmdstat_(fcall|evalsha):/ {n += $3} END {printf "%d\n", n}'
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

echo "limitscope-gateway + wrk: mock upstream (latency $MOCK_LATENCY), $CONNECTIONS connections, $WRK_THREADS wrk thread(s), $GATEWAY_THREADS gateway threads, $KEYS keys, $DURATION x $ROUNDS rounds"
printf '%-6s %-18s %12s %10s\n' round limiter 'requests/s' 'p99 ms'
for mode in "${MODES[@]}"; do : > "$WORK/rps.$mode"; : > "$WORK/p99.$mode"; : > "$WORK/batch.$mode"; : > "$WORK/calls.$mode"; done
for r in $(seq 1 "$ROUNDS"); do
  for mode in "${MODES[@]}"; do
    read -r rps p99 < <(run_one "$mode" "$r")
    printf '%-6s %-18s %12s %10s\n' "$r" "$mode" "$rps" "$p99"
    echo "$rps" >> "$WORK/rps.$mode"; echo "$p99" >> "$WORK/p99.$mode"
  done
done
off="$(median < "$WORK/rps.off")"
for mode in "${MODES[@]}"; do
  printf '%-6s %-18s %12s %10s\n' median "$mode" "$(median < "$WORK/rps.$mode")" "$(median < "$WORK/p99.$mode")"
done
for mode in "${MODES[@]}"; do
  [ "$mode" = off ] && continue
  awk -v a="$off" -v b="$(median < "$WORK/rps.$mode")" -v m="$mode" 'BEGIN {
    printf "%s / off throughput ratio %.3f (limiter cost %.1f%% of throughput%s)\n", m, b / a, (1 - b / a) * 100,
      m == "in-process" ? "; target <= 5%" : "" }'
done
for mode in "${MODES[@]}"; do
  [ -s "$WORK/batch.$mode" ] && echo "$mode: decisions per Redis round trip (median of rounds) $(median < "$WORK/batch.$mode")"
done
for mode in "${MODES[@]}"; do
  [ -s "$WORK/calls.$mode" ] && echo "$mode: Redis script calls per request (median of rounds) $(median < "$WORK/calls.$mode")"
done
if [ -s "$WORK/rps.redis" ]; then
  awk -v a="$(median < "$WORK/rps.redis-alone")" -v b="$(median < "$WORK/rps.redis")" 'BEGIN {
    printf "redis coalesced / redis alone throughput ratio %.3f\n", b / a }'
  awk -v a="$(median < "$WORK/rps.redis-4-in-flight")" -v b="$(median < "$WORK/rps.redis")" 'BEGIN {
    printf "redis coalesced when connections are busy / after 4 batches in flight throughput ratio %.3f\n", b / a }'
  awk -v a="$(median < "$WORK/rps.redis-settle-each")" -v b="$(median < "$WORK/rps.redis")" 'BEGIN {
    printf "redis settlement riding / settling each request throughput ratio %.3f\n", b / a }'
fi
