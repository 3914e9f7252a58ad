#!/usr/bin/env bash
# Server instructions per call of a token-bucket decision against the reference script (issue
# 18), counted by callgrind in a redis-server running under valgrind: unlike CPU time, the count
# hardly moves with the machine's load (the runs differ by ~1-2%), so two builds' Lua can be
# compared on the shared 2-core machine. Per call, over N pipelined calls (redis-benchmark
# -c 2 -P 16 on 1,000 random keys, after a warm-up of 4,000 calls that makes the keys live):
#   decide   FCALL of the library's decide, one token-bucket decision on server time
#            (capacity 100, 1000/s, cost 1: the bench-redis token_bucket phase), state format 2
#   ref      EVALSHA of bench-redis's reference script (HMGET, HMSET, PEXPIRE; client clock)
#   empty4   FCALL of a function that returns a 44-byte string, with decide's 4 keys and
#            2 arguments: the call itself
#   empty1   EVALSHA of `return 1` with the reference's 1 key and 3 arguments
#   gcra     FCALL of decide, one GCRA decision (the bench-redis gcra phase's rule: bench-gcra,
#            capacity 100, 1000/s, cost 1)
#   batch16  FCALL of decide, 16 GCRA decisions on 16 random keys (the gcra_batch phase), over
#            N/4 calls; its row also prints the instructions per decision
#   tbatch16 the same on the token-bucket rule (bench-tb)
# The ratio decide / ref is the instruction count's view of bench-redis's
# token_bucket_vs_reference_server_us (which times the same calls on the server's clock).
#
#   bench/redis_instructions.sh CLI [N]   (CLI: a built limitscope-cli; default N = 20000)
#   ROWS="gcra batch16" ...  counts only those rows; KEEP=DIR keeps callgrind's dumps there
#   (cg.out.<row number>, for callgrind_annotate)
#   needs: redis-server, redis-cli, redis-benchmark, valgrind (callgrind_control)
set -euo pipefail

CLI="${1:?usage: bench/redis_instructions.sh path/to/limitscope-cli [N]}"
N="${2:-20000}"
for tool in redis-server redis-cli redis-benchmark valgrind callgrind_control; do
  command -v "$tool" >/dev/null || { echo "redis_instructions.sh: $tool not found" >&2; exit 2; }
done

WORK="$(mktemp -d)"
VG_PID=""
cleanup() {
  [ -n "$VG_PID" ] && kill "$VG_PID" 2>/dev/null && wait "$VG_PID" 2>/dev/null
  [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$WORK"/cg.out.* "$KEEP"/ 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=private_redis.sh
source "$(dirname "${BASH_SOURCE[0]}")/private_redis.sh"
PRIVATE_REDIS_WAIT_S=20 start_private_redis "$WORK" valgrind --tool=callgrind \
  --callgrind-out-file="$WORK/cg.out" \
  || { echo "redis_instructions.sh: no redis-server could be started" >&2; exit 1; }
VG_PID="$REDIS_PID"
PORT="$REDIS_PORT"
R=(redis-cli -p "$PORT")
URL="redis://127.0.0.1:$PORT"

# The rule as bench-redis configures it; one decision loads the function library.
"$CLI" config set --redis "$URL" --redis-timeout 20s --rule bench-tb --algorithm token-bucket \
  --capacity 100 --refill 1000/s --reason "redis_instructions.sh" > /dev/null
# (A build from before the format switch writes format 2 anyway and has no such subcommand.)
"$CLI" config state-format --redis "$URL" --redis-timeout 20s --rule bench-tb --set 2 \
  > /dev/null 2>&1 || true
"$CLI" decide --redis "$URL" --redis-timeout 20s --rule bench-tb --key warm > /dev/null
"$CLI" config set --redis "$URL" --redis-timeout 20s --rule bench-gcra --algorithm gcra \
  --capacity 100 --refill 1000/s --reason "redis_instructions.sh" > /dev/null
# State format 3 where the build has it (GCRA states keep their TTL), else 2.
"$CLI" config state-format --redis "$URL" --redis-timeout 20s --rule bench-gcra --set 3 \
  > /dev/null 2>&1 ||
  "$CLI" config state-format --redis "$URL" --redis-timeout 20s --rule bench-gcra --set 2 \
  > /dev/null 2>&1 || true
DECIDE="$("${R[@]}" FUNCTION LIST | grep -o 'limitscope_decide_[0-9a-f]*' | head -1)"
REF="$("${R[@]}" SCRIPT LOAD "$(reference_token_bucket_lua)")"
EMPTY1="$("${R[@]}" SCRIPT LOAD 'return 1')"
printf '#!lua name=lsinstr\nredis.register_function(%s, function(KEYS, ARGV) return %s end)\n' \
  "'ls_empty44'" "'01234567890123456789012345678901234567890123'" |
  "${R[@]}" -x FUNCTION LOAD REPLACE > /dev/null

dumps=0
LAST=""
# Instructions per call of one redis-benchmark command line (after a warm-up of the same), over
# CALLS calls (default N).
count() {
  local label="$1" calls="${CALLS:-$N}"
  shift
  if [ -n "${ROWS:-}" ] && [[ " $ROWS " != *" $label "* ]]; then LAST=1; return; fi
  redis-benchmark -p "$PORT" -n 4000 -c 2 -P 16 -r 1000 "$@" > /dev/null 2>&1
  callgrind_control -z "$VG_PID" > /dev/null 2>&1
  redis-benchmark -p "$PORT" -n "$calls" -c 2 -P 16 -r 1000 "$@" > /dev/null 2>&1
  callgrind_control -d "$label" "$VG_PID" > /dev/null 2>&1
  local f ir
  dumps=$((dumps + 1))
  f="$WORK/cg.out.$dumps"  # callgrind numbers its dumps from 1, and may write it after answering
  for _ in $(seq 1 100); do
    grep -q '^totals:' "$f" 2>/dev/null && break
    sleep 0.1
  done
  ir="$(awk '/^summary:/ {print $2; exit}' "$f")"
  LAST="$(awk -v i="$ir" -v n="$calls" 'BEGIN {printf "%.0f", i / n}')"
  printf '%-8s %8s\n' "$label" "$LAST"
}

KEYS4=(4 'limitscope:{bench-tb}:config' 'limitscope:{bench-tb}:decisions'
       'limitscope:{bench-tb}:stamp' 'limitscope:{bench-tb}:s:k__rand_int__')
NOW_MS="$(($(date +%s) * 1000))"
echo "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') under callgrind, $N calls per row; $DECIDE"
printf '%-8s %8s\n' call 'instr/call'
count decide FCALL "$DECIDE" "${KEYS4[@]}" '' 1
decide="$LAST"
count ref EVALSHA "$REF" 1 'bench-ref:k__rand_int__' 100 1 "$NOW_MS"
ref="$LAST"
count empty4 FCALL ls_empty44 "${KEYS4[@]}" '' 1
count empty1 EVALSHA "$EMPTY1" 1 'bench-ref:k__rand_int__' 100 1 "$NOW_MS"
[ -z "${ROWS:-}" ] && awk -v a="$decide" -v b="$ref" 'BEGIN {printf "decide / ref: %.3f\n", a / b}'
# The last row's count per decision of its 16, when it was counted.
per_decision() {
  [ "$LAST" = 1 ] || awk -v a="$LAST" -v l="$1" 'BEGIN {printf "%s per decision: %.0f\n", l, a / 16}'
}
KEYS_G=(4 'limitscope:{bench-gcra}:config' 'limitscope:{bench-gcra}:decisions'
        'limitscope:{bench-gcra}:stamp' 'limitscope:{bench-gcra}:s:k__rand_int__')
count gcra FCALL "$DECIDE" "${KEYS_G[@]}" '' 1
KEYS_B=(19 'limitscope:{bench-gcra}:config' 'limitscope:{bench-gcra}:decisions'
        'limitscope:{bench-gcra}:stamp')
for _ in $(seq 1 16); do KEYS_B+=('limitscope:{bench-gcra}:s:k__rand_int__'); done
COSTS=('')
for _ in $(seq 1 16); do COSTS+=(1); done
CALLS=$((N / 4)) count batch16 FCALL "$DECIDE" "${KEYS_B[@]}" "${COSTS[@]}"
per_decision batch16
KEYS_T=(19 'limitscope:{bench-tb}:config' 'limitscope:{bench-tb}:decisions'
        'limitscope:{bench-tb}:stamp')
for _ in $(seq 1 16); do KEYS_T+=('limitscope:{bench-tb}:s:k__rand_int__'); done
CALLS=$((N / 4)) count tbatch16 FCALL "$DECIDE" "${KEYS_T[@]}" "${COSTS[@]}"
per_decision tbatch16
