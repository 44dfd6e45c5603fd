#!/usr/bin/env python3
"""bench/api: wrk against the mobile inbox list (a user with 50 entries, 64 connections) and, in the same run,
against a trivial endpoint of the same server (/healthz). Prints both rps, p99, and the ratio — and, as a
second reference, the same server sending a static file as large as the inbox answer (what moving those bytes
costs by itself, with no auth, store or JSON).

    bench/api/run [seconds]       (default 5 s per pass; HERALD_BENCH_ROUNDS interleaved rounds, default 3)

The machine's speed drifts from minute to minute, so the three endpoints take turns, round after round, and
each line shows the median round (by rate) for that endpoint; the ratios are of those medians.
"""
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ROUNDS = int(os.environ.get("HERALD_BENCH_ROUNDS", "3"))
LUA = """
wrk.headers["x-pch-digest"] = "%s"
wrk.headers["Authorization"] = "Bearer %s"
"""


def wrk(url, script=None):
    args = ["wrk", "-t2", "-c64", f"-d{SECONDS}s", "--latency", url]
    if script:
        args[1:1] = ["-s", script]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, float(p99.group(1)) * scale, int(non2xx.group(1)) if non2xx else 0


def main():
    hb.require("wrk")
    binary = hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-bench-api-")
    # One user's inbox at full speed: a throughput figure, so the per-user limit (50 a second by default) is off.
    herald = hb.Herald(binary, os.path.join(work, "data"), {"HERALD_PASSWORD_COST": "1024", "HERALD_MOBILE_RATE_PER_USER": "0"})
    try:
        business = herald.admin("POST", "/api/admin/businesses", {"name": "Bench Co"})
        client, secret = business["client"], business["secret"].encode()
        body = json.dumps({"client": client, "user": {"email": "bench@example.com", "password": "password123",
                                                      "password_confirmation": "password123", "first_name": "Bench"}})
        digest = hmac.new(secret, b"/api2/mobile/users" + body.encode(), hashlib.sha256).hexdigest()
        request = urllib.request.Request(f"http://127.0.0.1:{herald.port}/api2/mobile/users", data=body.encode(), method="POST",
                                         headers={"x-pch-digest": digest, "Content-Type": "application/json"})
        signed_up = json.loads(urllib.request.urlopen(request).read())
        token, user_id = signed_up["access_token"]["token"], signed_up["user"]["user_id"]
        for i in range(49):  # plus the sign-up entry: 50
            herald.admin("POST", f"/api/admin/businesses/{business['id']}/notifications",
                         {"user_ids": [user_id], "title": f"News {i}", "body": "Our new menu is here. Come and try it!"})
        target = f"/api2/mobile/notifications?client={client}&qty=50"
        digest = hmac.new(secret, target.encode(), hashlib.sha256).hexdigest()
        script = os.path.join(work, "inbox.lua")
        with open(script, "w") as f:
            f.write(LUA % (digest, token))
        check = urllib.request.Request(f"http://127.0.0.1:{herald.port}{target}",
                                       headers={"x-pch-digest": digest, "Authorization": f"Bearer {token}"})
        inbox_bytes = urllib.request.urlopen(check).read()
        assert len(json.loads(inbox_bytes)) == 50
        _, static_path = herald.upload_jpeg(business["id"], len(inbox_bytes))

        print(f"measuring: herald pid {herald.process.pid}", flush=True)
        runs = {"trivial": [], "inbox": [], "static": []}
        for _ in range(ROUNDS):
            runs["trivial"].append(wrk(f"http://127.0.0.1:{herald.port}/healthz"))
            runs["inbox"].append(wrk(f"http://127.0.0.1:{herald.port}{target}", script))
            runs["static"].append(wrk(f"http://127.0.0.1:{herald.port}{static_path}"))
        for name, results in runs.items():
            print(f"  {name:8} req/s per round: {', '.join(f'{r[0]:.0f}' for r in results)}")
        trivial, inbox, static = (sorted(runs[name])[len(runs[name]) // 2] for name in ("trivial", "inbox", "static"))
        print(f"bench/api  wrk -t2 -c64 -d{SECONDS}s, median of {ROUNDS} interleaved rounds  (access log at warning)")
        print(f"  GET /healthz (trivial)          : {trivial[0]:9.0f} req/s  p99 {trivial[1]:6.2f} ms  non-2xx {trivial[2]}")
        print(f"  GET /api2/mobile/notifications  : {inbox[0]:9.0f} req/s  p99 {inbox[1]:6.2f} ms  non-2xx {inbox[2]}  (50 entries)")
        print(f"  GET /media/<sha>.jpg            : {static[0]:9.0f} req/s  p99 {static[1]:6.2f} ms  non-2xx {static[2]}"
              f"  (static, {len(inbox_bytes)} bytes like the inbox)")
        print(f"  ratio inbox / trivial           : {inbox[0] / trivial[0]:9.1%}")
        print(f"  ratio inbox / same-size static  : {inbox[0] / static[0]:9.1%}")
        refused = sum(r[2] for results in runs.values() for r in results)
        if refused:
            # A 429 or a 5xx is not throughput: the figures above do not measure what they say.
            sys.exit(f"bench/api: {refused} non-2xx answers in the runs above; the figures are not valid")
    finally:
        herald.stop()


if __name__ == "__main__":
    main()
