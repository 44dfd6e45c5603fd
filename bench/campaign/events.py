#!/usr/bin/env python3
"""bench/campaign/events: `POST /api/v1/events` with batches of 100 lifecycle events (`app.opened`, each with a new
id, so every one is checked and written), signed by 64 installs, with wrk (-t2 -c64), and in the same run the
trivial endpoint (`/healthz`) as bench/api does; 3 interleaved rounds, the median shown.

The requests are signed beforehand (wrk's Lua has no HMAC): each round writes a file of signed requests per wrk
thread, read a line per request; a thread that reaches the end of its file starts it again (those events are then
answered `duplicate`) and says so.

    bench/campaign/events [seconds]          (default 5 s per pass; HERALD_BENCH_ROUNDS, default 3)
    HERALD_BENCH_BINARY=.build/release/herald bench/campaign/events
"""
import datetime
import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ROUNDS = int(os.environ.get("HERALD_BENCH_ROUNDS", "3"))
INSTALLS = 64
PER_THREAD = int(os.environ.get("HERALD_BENCH_REQUESTS", "6000"))
LUA = r"""
local counter = 0
local threads = {}
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  path = "%s/requests-" .. id .. ".txt"
  file = io.open(path)
  wrapped = false
end
function request()
  local line = file:read("*l")
  if line == nil then
    if not wrapped then io.stderr:write("wrk thread " .. id .. ": out of signed requests, starting again\n") end
    wrapped = true
    file:close()
    file = io.open(path)
    line = file:read("*l")
  end
  local key, ts, sig, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
  return wrk.format("POST", "/api/v1/events", {["Content-Type"] = "application/json", ["X-Herald-Key-Id"] = key,
    ["X-Herald-Timestamp"] = ts, ["X-Herald-Signature"] = sig}, body)
end
"""


def wrk(url, script=None):
    args = ["wrk", "-t2", "-c64", f"-d{SECONDS}s", "--latency", url]
    if script:
        args[1:1] = ["-s", script]
    run = subprocess.run(args, capture_output=True, text=True)
    out = run.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if run.stderr.strip():
        print("  " + run.stderr.strip().replace("\n", "\n  "))
    return rps, float(p99.group(1)) * scale, int(non2xx.group(1)) if non2xx else 0


def write_requests(directory, installs):
    """A file of signed batches per wrk thread, signed now (the server takes timestamps within 300 s)."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    ts = str(int(time.time()))
    data = {"sdk_version": "1.0.0", "app_version": "3.2.0", "os_version": "17.4"}
    for thread in range(2):
        with open(os.path.join(directory, f"requests-{thread}.txt"), "w") as f:
            for n in range(PER_THREAD):
                key_id, secret = installs[(thread * PER_THREAD + n) % len(installs)]
                body = json.dumps({"events": [{"id": str(uuid.uuid4()), "type": "app.opened", "occurred_at": now,
                                               "data": data} for _ in range(100)]}, separators=(",", ":"))
                signature = hmac.new(secret.encode(), f"POST\n/api/v1/events\n\n{ts}\n{body}".encode(),
                                     hashlib.sha256).hexdigest()
                f.write(f"{key_id}\t{ts}\t{signature}\t{body}\n")


def main():
    hb.require("wrk")
    binary = os.environ.get("HERALD_BENCH_BINARY") or hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-bench-events-")
    herald = hb.Herald(binary, os.path.join(work, "data"), {"HERALD_DELIVERY": "off"})
    try:
        business = herald.admin("POST", "/api/admin/businesses", {"name": "Bench Co"})
        installs = []
        for n in range(INSTALLS):
            body = json.dumps({"api_key": business["api_key"], "install_id": f"bench-install-{n}", "platform": "ios",
                               "push_token": f"{n + 1:064x}", "push_token_type": "apns",
                               "apns_environment": "production", "app_version": "3.2.0", "os_version": "17.4",
                               "device_model": "iPhone15,2", "locale": "en_US", "timezone": "America/New_York",
                               "sdk_version": "1.0.0", "permissions": {"notifications": True, "location": "none"}})
            request = urllib.request.Request(f"http://127.0.0.1:{herald.port}/api/v1/installs", data=body.encode(),
                                             method="POST", headers={"Content-Type": "application/json"})
            credential = json.loads(urllib.request.urlopen(request).read())["credential"]
            installs.append((credential["key_id"], credential["secret"]))
        script = os.path.join(work, "events.lua")
        with open(script, "w") as f:
            f.write(LUA % work)
        # One batch by hand: every event accepted.
        write_requests(work, installs)
        with open(os.path.join(work, "requests-0.txt")) as f:
            key_id, ts, signature, body = f.readline().rstrip("\n").split("\t")
        check = urllib.request.Request(f"http://127.0.0.1:{herald.port}/api/v1/events", data=body.encode(),
                                       method="POST", headers={"Content-Type": "application/json",
                                                               "X-Herald-Key-Id": key_id, "X-Herald-Timestamp": ts,
                                                               "X-Herald-Signature": signature})
        results = json.loads(urllib.request.urlopen(check).read())["data"]["results"]
        assert len(results) == 100 and all(r["status"] == "accepted" for r in results), results[:3]

        print(f"measuring: herald pid {herald.process.pid}", flush=True)
        runs = {"trivial": [], "events": []}
        for _ in range(ROUNDS):
            runs["trivial"].append(wrk(f"http://127.0.0.1:{herald.port}/healthz"))
            write_requests(work, installs)
            cpu, wall = herald.cpu_seconds(), time.monotonic()
            runs["events"].append(wrk(f"http://127.0.0.1:{herald.port}/api/v1/events", script)
                                  + ((herald.cpu_seconds() - cpu) / (time.monotonic() - wall),))
        for name, results in runs.items():
            print(f"  {name:8} req/s per round: {', '.join(f'{r[0]:.0f}' for r in results)}")
        trivial, events = (sorted(runs[name])[len(runs[name]) // 2] for name in ("trivial", "events"))
        print(f"bench/campaign/events  wrk -t2 -c64 -d{SECONDS}s, median of {ROUNDS} interleaved rounds")
        print(f"  GET /healthz (trivial)        : {trivial[0]:9.0f} req/s  p99 {trivial[1]:6.2f} ms  non-2xx {trivial[2]}")
        print(f"  POST /api/v1/events (100 each): {events[0]:9.0f} req/s  p99 {events[1]:6.2f} ms  non-2xx {events[2]}"
              f"  = {events[0] * 100:,.0f} events/s")
        print(f"  ratio events / trivial        : {events[0] / trivial[0]:9.1%}")
        print(f"  herald CPU during the events pass: {events[3]:.2f} cores ({events[3] / events[0] * 1e6:.0f} µs per batch,"
              f" {events[3] / events[0] * 1e4:.1f} µs per event)")
    finally:
        herald.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
