#!/usr/bin/env python3
"""Hostile connection load on a real limitscope-gateway (mock upstream), loopback, bounded.

  bench/gateway_slow_clients.py GATEWAY_BINARY [--slow 300] [--drip 2] [--seconds 15]
                                 [--concurrent 2000]

1. --slow connections each send a request head one byte every --drip seconds (slowloris),
   while one legitimate client sends requests one after another for --seconds, each on a new
   connection, each given 20 s: prints answered/sent and latency p50/p99/max.
2. A fresh gateway gets --concurrent connections at once, one request each: prints how many
   were answered within 30 s, and p50/p99 from send to the whole answer.
Numbers, never pass/fail (docs/gateway.md quotes them). Standard library only.
"""
import argparse, asyncio, json, statistics, subprocess, sys, time

POLICY = json.dumps({
    "tiers": {"t": {"requests": {"algorithm": "token-bucket", "capacity": 1e9, "refill": "1000000000/s"}}},
    "models": {"m": {"cost": 1}}, "keys": {"k": "t"}})
BODY = b'{"model":"m","messages":[{"content":"hi"}],"max_tokens":5}'
REQUEST = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n"
           b"Content-Length: %d\r\n\r\n" % len(BODY)) + BODY


def start(binary, policy_path):
    p = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--mock-upstream", "--policy", policy_path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p, int(p.stdout.readline().decode().rsplit(":", 1)[1])


async def one_request(port, timeout):
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        w.write(REQUEST)
        await w.drain()
        head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), timeout - (time.monotonic() - t0))
        length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
        await asyncio.wait_for(r.readexactly(length), timeout - (time.monotonic() - t0))
        w.close()
        return time.monotonic() - t0 if head.startswith(b"HTTP/1.1 200") else None
    except Exception:
        return None


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


async def slowloris(port, slow, drip, seconds):
    writers = []
    for _ in range(slow):
        try:
            _, w = await asyncio.open_connection("127.0.0.1", port)
            writers.append(w)
        except Exception:
            pass
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 1000

    async def drip_all():
        i = 0
        while True:
            for w in writers:
                try:
                    w.write(head[i % len(head):i % len(head) + 1])
                except Exception:
                    pass
            i += 1
            await asyncio.sleep(drip)

    dripper = asyncio.create_task(drip_all())
    await asyncio.sleep(1)  # let the slow clients take what they can
    latencies, sent, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        sent += 1
        lat = await one_request(port, 20)
        if lat is not None:
            latencies.append(lat)
    dripper.cancel()
    for w in writers:
        w.close()
    return sent, latencies


async def concurrent(port, n):
    results = await asyncio.gather(*(one_request(port, 30) for _ in range(n)))
    return [r for r in results if r is not None]


def main():
    a = argparse.ArgumentParser()
    a.add_argument("binary")
    a.add_argument("--slow", type=int, default=300)
    a.add_argument("--drip", type=float, default=2)
    a.add_argument("--seconds", type=float, default=15)
    a.add_argument("--concurrent", type=int, default=2000)
    args = a.parse_args()
    import resource, tempfile
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(POLICY)
    p, port = start(args.binary, f.name)
    sent, lat = asyncio.run(slowloris(port, args.slow, args.drip, args.seconds))
    p.terminate(); p.wait()
    print(f"{args.slow} slow clients: legitimate answered {len(lat)}/{sent}, "
          f"p50 {pct(lat, .5) * 1000:.1f} ms, p99 {pct(lat, .99) * 1000:.1f} ms, max {max(lat, default=float('nan')) * 1000:.1f} ms")
    p, port = start(args.binary, f.name)
    lat = asyncio.run(concurrent(port, args.concurrent))
    p.terminate(); p.wait()
    print(f"{args.concurrent} concurrent: answered {len(lat)}/{args.concurrent}, "
          f"p50 {pct(lat, .5) * 1000:.1f} ms, p99 {pct(lat, .99) * 1000:.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
