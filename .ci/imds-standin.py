#!/usr/bin/env python3
"""A stand-in for Azure's Instance Metadata Service, on loopback only.

CI points the Linux collector at it (--imds-url), so that the collector's metadata path runs
for real without a request ever leaving the machine. Like the real service it answers the
instance document only to `GET /metadata/instance` with the `Metadata: true` header; a
request without the header gets the HTML 400 page the service sends, any other path 404.
Every request is logged to --log as one JSON line (method, path, metadata header, status).

Usage: imds-standin.py --document FILE --refusal FILE --log FILE --port-file FILE
It binds 127.0.0.1 on a free port, writes the port to --port-file, and serves until it is
killed or --lifetime seconds have passed (it stops by itself).
"""

import argparse
import http.server
import json
import threading

PATH = "/metadata/instance"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--document", required=True)
    ap.add_argument("--refusal", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=600.0)
    args = ap.parse_args()
    with open(args.document, "rb") as f:
        document = f.read()
    with open(args.refusal, "rb") as f:
        refusal = f.read()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            metadata = self.headers.get("Metadata", "").strip() == "true"
            if self.path.split("?", 1)[0] != PATH:
                status, kind, body = 404, "text/plain", b"not found\n"
            elif not metadata:
                status, kind, body = 400, "text/html", refusal
            else:
                status, kind, body = 200, "application/json; charset=utf-8", document
            with open(args.log, "a", encoding="utf-8") as log:
                line = {"method": "GET", "path": self.path, "metadata": metadata, "status": status}
                log.write(json.dumps(line) + "\n")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file, "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    threading.Timer(args.lifetime, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
