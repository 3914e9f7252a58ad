#!/usr/bin/env python3
"""Tokens billed against a TPM limit by an upstream that reports far more than the estimate.

  bench/gateway_token_debt.py GATEWAY_BINARY [--seconds 20] [--concurrency 1]
                              [--redis-server redis-server]

One key of a tier limited to 5,000 LLM tokens per minute (capacity 5,000) sends chat requests
(max_tokens 10) for --seconds, --concurrency at a time, to a real limitscope-gateway whose
upstream bills 100,000 tokens for every call. Prints, for the in-process limiter and for Redis
(a private redis-server on a free port), the requests admitted, the tokens billed (the
gateway's limitscope_llm_tokens_total, i.e. what the upstream reported) and the bound
C + D + r*t the limiter promises on tokens charged to the key (D = one hour of refill).
Numbers, never pass/fail (docs/gateway.md quotes them). Standard library only.
"""
import argparse, http.server, json, socket, subprocess, sys, tempfile, threading, time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

POLICY = json.dumps({
    "tiers": {"tpm": {"requests": {"algorithm": "token-bucket", "capacity": 1000000, "refill": "1000000/s"},
                      "llm_tokens": {"algorithm": "token-bucket", "capacity": 5000, "refill": "5000/min"}}},
    "models": {"m": {"cost": 1}}, "keys": {"attacker": "tpm"}})
BODY = json.dumps({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}).encode()
USAGE = json.dumps({"id": "x", "object": "chat.completion", "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 99990, "total_tokens": 100000}}).encode()
CAPACITY, RATE_PER_S = 5000, 5000 / 60
DEBT = RATE_PER_S * 3600


class Greedy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(USAGE)))
        self.end_headers()
        self.wfile.write(USAGE)

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gateway(binary, policy, upstream, extra):
    p = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--policy", policy, "--upstream", upstream] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p, int(p.stdout.readline().decode().rsplit(":", 1)[1])


def post(port):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=BODY, method="POST",
                                 headers={"Authorization": "Bearer attacker", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception:
        return -1


def billed(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("limitscope_llm_tokens_total{") and 'tier="tpm"' in line)


def run(binary, policy, upstream, extra, seconds, concurrency):
    p, port = start_gateway(binary, policy, upstream, extra)
    statuses, end = [], time.monotonic() + seconds
    t0 = time.monotonic()

    def loop():
        while time.monotonic() < end:
            statuses.append(post(port))

    with ThreadPoolExecutor(concurrency) as pool:
        for _ in range(concurrency):
            pool.submit(loop)
    elapsed = time.monotonic() - t0
    tokens = billed(port)
    p.terminate(); p.wait()
    return statuses, tokens, elapsed


def main():
    a = argparse.ArgumentParser()
    a.add_argument("binary")
    a.add_argument("--seconds", type=float, default=20)
    a.add_argument("--concurrency", type=int, default=1)
    a.add_argument("--redis-server", default="redis-server")
    args = a.parse_args()
    up = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Greedy)
    threading.Thread(target=up.serve_forever, daemon=True).start()
    upstream = f"http://127.0.0.1:{up.server_address[1]}"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(POLICY)
    rport = free_port()
    redis = subprocess.Popen([args.redis_server, "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # a benchmark, not a test: redis-server starts in milliseconds
    try:
        for name, extra in (("in-process", []), ("redis", ["--redis", f"redis://127.0.0.1:{rport}"])):
            statuses, tokens, elapsed = run(args.binary, f.name, upstream, extra, args.seconds, args.concurrency)
            bound = CAPACITY + DEBT + RATE_PER_S * elapsed
            print(f"{name}: {len(statuses)} requests in {elapsed:.1f} s at concurrency {args.concurrency}: "
                  f"{statuses.count(200)} admitted, {statuses.count(429)} refused (429); "
                  f"billed {tokens:,.0f} tokens; limit 5,000/min; bound C+D+r*t on tokens charged {bound:,.0f}")
    finally:
        redis.terminate(); redis.wait()
        up.shutdown()


if __name__ == "__main__":
    sys.exit(main())
