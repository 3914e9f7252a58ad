#!/usr/bin/env bash
# Context switches and CPU per request of one limitscope-gateway on a private redis-server,
# under 5 s of wrk (32 connections, keys over 1,000 API keys, the mock upstream): what
# docs/benchmarks.md ("Gateway", "Why coalescing does not raise throughput here") compares
# between decisions sent alone and coalesced. Counts from /proc, never timings of our own.
#
#   bench/gateway_switches.sh GATEWAY [gateway args...]   e.g. build/app/limitscope-gateway --redis-batch-window 0
#   needs: wrk, curl, redis-server, redis-cli
set -euo pipefail
GW="$1"; shift
W=$(mktemp -d)
PORT=$(shuf -i 30000-50000 -n 1)
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --dir $W > $W/r.log 2>&1 & RP=$!
for i in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
cat > $W/p.json <<'J'
{"default_tier":"bench","tiers":{"bench":{"requests":{"algorithm":"token-bucket","capacity":1e12,"refill":"1e9/s"},"llm_tokens":{"algorithm":"token-bucket","capacity":1e15,"refill":"1e12/s"}}},"models":{"gpt-4.1":{"cost":8}}}
J
cat > $W/post.lua <<'L'
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/v1/chat/completions", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer bench-key-" .. (n % 1000) }, '{"model":"gpt-4.1","max_tokens":64,"messages":[{"role":"user","content":"Say hello to the benchmark."}]}')
end
L
"$GW" --listen 127.0.0.1:0 --policy $W/p.json --mock-upstream --threads 64 --redis redis://127.0.0.1:$PORT "$@" > $W/gw.out 2>$W/gw.err & GP=$!
for i in $(seq 50); do grep -q listening $W/gw.out 2>/dev/null && break; sleep 0.1; done
ADDR=$(head -1 $W/gw.out | sed 's/listening on //')
sw() { cat /proc/$GP/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {v+=$2} /^nonvoluntary_ctxt_switches/ {n+=$2} END {print v, n}'; }
cpu() { awk '{print $14+$15}' /proc/$GP/stat; }
read v0 n0 < <(sw); c0=$(cpu)
OUT=$(wrk -t1 -c32 -d5s -s $W/post.lua http://$ADDR | grep Requests/sec)
read v1 n1 < <(sw); c1=$(cpu)
REQ=$(curl -s http://$ADDR/metrics | awk '/^limitscope_gateway_responses_total/ {n+=$2} END {print n}')
echo "$* : $OUT ; served $REQ ; voluntary switches/request $(awk -v a=$((v1-v0)) -v r=$REQ 'BEGIN{printf "%.2f", a/r}') ; involuntary/request $(awk -v a=$((n1-n0)) -v r=$REQ 'BEGIN{printf "%.2f", a/r}') ; gateway CPU ms/request $(awk -v a=$((c1-c0)) -v r=$REQ 'BEGIN{printf "%.3f", a*10/r}')"
kill $GP; wait $GP 2>/dev/null || true; kill $RP; wait $RP 2>/dev/null || true; rm -rf $W
