#!/usr/bin/env python3
"""Checks a running `advisor serve` container on loopback: /healthz answers without a token,
an upload without one gets 401, and the DS13_v2 scenario uploaded with the token gets the
report whose first finding is the VM's cached throughput cap.

    python3 .ci/image-check.py --port PORT --token TOKEN --scenario DIR [--wait 60]

Loopback only; Python standard library only."""

import argparse
import http.client
import json
import sys
import time
from pathlib import Path

BOUNDARY = "advisor-image-check-5e1d"


def form(scenario):
    parts = []
    for field, name in (("capture", "capture.csv"), ("topology", "topology.toml")):
        parts.append(
            b'--%s\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n'
            b"Content-Type: application/octet-stream\r\n\r\n"
            % (BOUNDARY.encode(), field.encode(), name.encode())
        )
        parts.append((scenario / name).read_bytes())
        parts.append(b"\r\n")
    parts.append(b"--%s--\r\n" % BOUNDARY.encode())
    return b"".join(parts)


def ask(port, method, path, body=None, token=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "multipart/form-data; boundary=" + BOUNDARY
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--scenario", type=Path, required=True)
    ap.add_argument("--wait", type=float, default=60)
    args = ap.parse_args()

    deadline = time.time() + args.wait
    while True:
        try:
            status, body = ask(args.port, "GET", "/healthz")
            if status == 200 and body == b"ok\n":
                break
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit("the container did not answer /healthz within %s s" % args.wait)
        time.sleep(0.5)
    print("healthz: 200 without a token")

    upload = form(args.scenario)
    status, body = ask(args.port, "POST", "/api/v1/analyze", upload)
    problem = json.loads(body)
    if status != 401 or problem.get("code") != "unauthorized":
        sys.exit("an upload without a token got %s: %s" % (status, body[:300]))
    print("upload without a token: 401 unauthorized")

    started = time.time()
    status, body = ask(args.port, "POST", "/api/v1/analyze", upload, args.token)
    if status != 200:
        sys.exit("the upload with the token got %s: %s" % (status, body[:500]))
    report = json.loads(body)
    first = report["findings"][0]["rule"]
    if first != "vm-cached-throughput-cap":
        sys.exit("the report's first finding is %s" % first)
    print("upload with the token: 200 in %.1f s, verdict %s, first finding %s"
          % (time.time() - started, report["verdict"]["status"], first))


if __name__ == "__main__":
    main()
