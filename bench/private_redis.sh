# shellcheck shell=bash
# Sourced by the bench scripts: start_private_redis DIR [WRAPPER...] starts a redis-server on a
# random free loopback port (retried when the port was taken), with no persistence and DIR as
# its working directory, and sets REDIS_PID and REDIS_PORT; it returns 1 (both empty) when none
# could be started. The caller stops it (kill "$REDIS_PID"). WRAPPER runs the server (for
# example `valgrind --tool=callgrind ...`; REDIS_PID is then the wrapper's), and
# PRIVATE_REDIS_WAIT_S (default 5) bounds the wait for its first answer.
#
# reference_token_bucket_lua prints bench-redis's reference script (the seed-style token bucket,
# HMGET, HMSET, PEXPIRE on a client clock) from app/cli/cmd_bench_redis.cpp, its one copy.
start_private_redis() {
  local dir="$1" port
  shift
  local tries=$(( ${PRIVATE_REDIS_WAIT_S:-5} * 20 ))
  REDIS_PID=""
  REDIS_PORT=""
  for port in $(shuf -i 20000-60000 -n 10); do
    "$@" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
      > "$dir/redis.log" 2>&1 &
    REDIS_PID=$!
    for _ in $(seq 1 "$tries"); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && break
      kill -0 "$REDIS_PID" 2>/dev/null || break
      sleep 0.05
    done
    if redis-cli -p "$port" ping >/dev/null 2>&1; then
      REDIS_PORT="$port"  # read by the caller
      return 0
    fi
    kill "$REDIS_PID" 2>/dev/null; wait "$REDIS_PID" 2>/dev/null; REDIS_PID=""
  done
  return 1
}

reference_token_bucket_lua() {
  local src
  src="$(dirname "${BASH_SOURCE[0]}")/../app/cli/cmd_bench_redis.cpp"
  sed -n '/kReference("reference_token_bucket"/,/^)lua");/p' "$src" | sed '1d;$d'
}
