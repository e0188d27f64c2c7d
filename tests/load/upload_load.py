#!/usr/bin/env python3
"""Load check of `advisor serve`: N concurrent uploads of a realistic capture on loopback.

    cargo build --release -p advisor-cli
    python3 tests/load/upload_load.py [--concurrency 20] [--requests 60] [--mb 10]
                                      [--workers N] [--queue-wait 5] [--budget 300]

Starts the server on a free loopback port, generates the capture with
`cargo run -p xtask -- gen perfmon --mb MB` unless --capture names one, sends --requests
uploads from --concurrency threads (each request bounded by a 300 s socket timeout, the
whole run by --budget seconds), then reports requests/s, p50/p99 latency, the answers by
status, and the server's peak RSS (VmHWM of /proc/PID/status). Loopback only; stops by itself.
Python standard library only.
"""

import argparse
import http.client
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BOUNDARY = "advisor-load-boundary-0b6e"


def multipart(name, data, topology):
    parts = [
        (b'--%s\r\nContent-Disposition: form-data; name="capture"; filename="%s"\r\n'
         b"Content-Type: text/csv\r\n\r\n" % (BOUNDARY.encode(), name.encode())),
        data,
        b"\r\n",
        (b'--%s\r\nContent-Disposition: form-data; name="vm"\r\n\r\n%s\r\n'
         % (BOUNDARY.encode(), topology.encode())),
        b"--%s--\r\n" % BOUNDARY.encode(),
    ]
    return b"".join(parts)


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def peak_rss_mib(pid):
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    m = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) / 1024 if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=None, help="advisor binary (default: target/release/advisor)")
    ap.add_argument("--capture", default=None, help="capture to upload (default: generated)")
    ap.add_argument("--mb", type=int, default=10, help="size of the generated capture (MB)")
    ap.add_argument("--vm", default="Standard_E16as_v5", help="VM size sent with each upload")
    ap.add_argument("--concurrency", type=int, default=20)
    ap.add_argument("--requests", type=int, default=60, help="total uploads (bounded)")
    ap.add_argument("--workers", type=int, default=None, help="server --workers")
    ap.add_argument("--queue-wait", type=int, default=5, help="server --queue-wait (s)")
    ap.add_argument("--budget", type=float, default=300, help="seconds for the whole run")
    args = ap.parse_args()
    if not (1 <= args.concurrency <= 64 and 1 <= args.requests <= 1000):
        sys.exit("--concurrency 1..64 and --requests 1..1000")

    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = Path(args.binary) if args.binary else target / "release" / "advisor"
    if not binary.exists():
        sys.exit(f"{binary} missing: cargo build --release -p advisor-cli")

    with tempfile.TemporaryDirectory(prefix="advisor-load-") as tmp:
        capture = Path(args.capture) if args.capture else Path(tmp) / "capture.csv"
        if not args.capture:
            subprocess.run(
                ["cargo", "run", "-q", "--release", "-p", "xtask", "--", "gen", "perfmon",
                 "--mb", str(args.mb), "--out", str(capture)],
                cwd=REPO, check=True, timeout=900)
        data = capture.read_bytes()
        body = multipart(capture.name, data, args.vm)

        cmd = [str(binary), "serve", "--listen", "127.0.0.1:0",
               "--queue-wait", str(args.queue_wait), "--timeout", str(int(args.budget))]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        server = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            first = server.stderr.readline()
            m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
            if not m:
                sys.exit(f"no address from the server: {first!r}")
            port = int(m.group(1))
            # Drain the server's log so it never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()

            latencies, statuses, lock = [], Counter(), threading.Lock()
            counter = iter(range(args.requests))
            deadline = time.monotonic() + args.budget

            def worker():
                while time.monotonic() < deadline:
                    with lock:
                        if next(counter, None) is None:
                            return
                    t0 = time.monotonic()
                    try:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                        conn.request("POST", "/api/v1/analyze", body=body, headers={
                            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                            "Accept": "application/json"})
                        resp = conn.getresponse()
                        resp.read()
                        status = resp.status
                        conn.close()
                    except OSError as e:
                        status = type(e).__name__
                    dt = time.monotonic() - t0
                    with lock:
                        statuses[status] += 1
                        if status == 200:
                            latencies.append(dt)

            t0 = time.monotonic()
            threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=max(0.0, deadline - time.monotonic()) + 310)
            wall = time.monotonic() - t0

            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/healthz")
            healthy = conn.getresponse().status == 200
            conn.close()
            rss = peak_rss_mib(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

    ok = statuses.get(200, 0)
    print(f"capture: {len(data) / 1e6:.1f} MB ({capture.name}), {args.concurrency} concurrent, "
          f"{sum(statuses.values())} uploads, server workers {args.workers or 'default'}, "
          f"queue wait {args.queue_wait} s")
    print(f"answers: {dict(sorted(statuses.items(), key=str))}")
    print(f"wall {wall:.1f} s; {ok / wall:.2f} analyses/s; "
          f"{len(data) * ok / wall / 1e6:.1f} MB/s of captures")
    if latencies:
        print(f"latency of 200s: p50 {percentile(latencies, 50):.2f} s, "
              f"p99 {percentile(latencies, 99):.2f} s, max {max(latencies):.2f} s, "
              f"mean {statistics.mean(latencies):.2f} s")
    print(f"server peak RSS (VmHWM): {rss:.0f} MiB; /healthz after the run: "
          f"{'200' if healthy else 'FAILED'}")
    return 0 if healthy and ok > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
