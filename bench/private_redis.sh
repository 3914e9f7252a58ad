# shellcheck shell=bash
# Sourced by the bench scripts: start_private_redis DIR starts a redis-server on a random free
# loopback port (retried when the port was taken), with no persistence and DIR as its working
# directory, and sets REDIS_PID and REDIS_PORT; it returns 1 (both empty) when none could be
# started. The caller stops it (kill "$REDIS_PID").
start_private_redis() {
  local dir="$1" port
  REDIS_PID=""
  REDIS_PORT=""
  for port in $(shuf -i 20000-60000 -n 10); do
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
      > "$dir/redis.log" 2>&1 &
    REDIS_PID=$!
    for _ in $(seq 1 100); do
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
