#!/usr/bin/env python3
"""bench/client: Herald's HTTP/2 client alone (the http2-client-bench executable, a closed loop over HTTP2Client)
against h2load, in the same run, against the same server, with the same connections, streams per connection,
payload and headers. Requests per second and CPU µs per request for both (the client's own process; h2load's
from its rusage).

    bench/client/run [N]        (default N = 100000; the slow scenario runs N / 2.5)

Scenarios:
  a  next door: nghttpd --echo-upload, answering at once (and the HAProxy sink with no delay, for comparison)
  b  40 ms: every answer 40 ms late (HAProxy sink, waits side by side)
  c  40 ms with one request in ten answered after 2 s (its device token starts with c0ffee)
Each scenario runs h2load and the client in turn, three rounds, and reports the medians and their ratio.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
ROUNDS = 3
FAST = "ab" * 32
SLOW = "c0ffee" + "ab" * 29
PAYLOAD = ('{"aps":{"alert":{"title":"Flash sale","subtitle":"Today only","body":"Everything is half price until 6pm!"},'
           '"sound":"default","badge":1},"n":123456,"u":654321}')
HEADERS = [("apns-topic", "com.example.bench"), ("apns-push-type", "alert"), ("apns-priority", "10"),
           ("apns-id", "7C7B3A9E-2D1F-4F6B-9A55-6D2C1E0B8F11")]


def build():
    """The benchmark executable in release mode, under the shared build lock when there is one."""
    command = ["swift", "build", "-c", "release", "--product", "http2-client-bench"]
    if shutil.which("flock"):
        command = ["flock", "/tmp/herald-swift.lock"] + command
    subprocess.run(command, cwd=hb.ROOT, check=True)
    return os.path.join(hb.ROOT, ".build", "release", "http2-client-bench")


def run_h2load(base, requests, connections, streams, payload_file, uris_file):
    args = ["h2load", "-n", str(requests), "-c", str(connections), "-m", str(streams), f"--data={payload_file}"]
    for name, value in HEADERS:
        args += ["-H", f"{name}: {value}"]
    args += ["-i", uris_file]
    before = hb.children_cpu_seconds()
    result = subprocess.run(args, capture_output=True, text=True)
    cpu = hb.children_cpu_seconds() - before
    match = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", result.stdout)
    done = re.search(r"(\d+) succeeded, (\d+) failed, (\d+) errored", result.stdout)
    if not match or not done or int(done.group(1)) != requests:
        sys.exit(f"h2load failed:\n{result.stdout}\n{result.stderr}")
    return float(match.group(1)), cpu * 1e6 / requests


def run_client(binary, base, ca, requests, connections, streams, payload_file, slow_every):
    env = dict(os.environ, BENCH_URL=base, BENCH_CA=ca, BENCH_REQUESTS=str(requests),
               BENCH_CONNECTIONS=str(connections), BENCH_STREAMS=str(streams), BENCH_BODY=payload_file,
               BENCH_SLOW_EVERY=str(slow_every), BENCH_SLOW_PREFIX="c0ffee")
    result = subprocess.run([binary], capture_output=True, text=True, env=env, timeout=600)
    if result.returncode != 0:
        sys.exit(f"http2-client-bench failed:\n{result.stdout}\n{result.stderr}")
    line = json.loads(result.stdout.strip().splitlines()[-1])
    if line["failures"]:
        sys.exit(f"http2-client-bench: {line['failures']} requests failed, first: {line['first_failure']}")
    return line


def scenario(name, binary, base, ca, work, requests, connections, streams, slow_every):
    payload_file = os.path.join(work, "payload.json")
    with open(payload_file, "w") as f:
        f.write(PAYLOAD)
    uris_file = os.path.join(work, f"uris-{slow_every}.txt")
    with open(uris_file, "w") as f:
        for index in range(1, (slow_every or 1) + 1):
            token = SLOW if slow_every and index == slow_every else FAST
            f.write(f"{base}/3/device/{token}\n")
    h2load_runs, client_runs = [], []
    for _ in range(ROUNDS):
        h2load_runs.append(run_h2load(base, requests, connections, streams, payload_file, uris_file))
        client_runs.append(run_client(binary, base, ca, requests, connections, streams, payload_file, slow_every))
    h2_rate = statistics.median(r[0] for r in h2load_runs)
    h2_cpu = statistics.median(r[1] for r in h2load_runs)
    rate = statistics.median(r["rps"] for r in client_runs)
    cpu = statistics.median(r["cpu_us_per_request"] for r in client_runs)
    slow_p50 = statistics.median(r["slow_p50_ms"] for r in client_runs)
    fast_p99 = statistics.median(r["fast_p99_ms"] for r in client_runs)
    print(f"{name}")
    print(f"  h2load : {h2_rate:9.0f} req/s  {h2_cpu:5.1f} µs CPU/req   runs {', '.join(f'{r[0]:.0f}' for r in h2load_runs)}")
    client_rates = ", ".join(f"{r['rps']:.0f}" for r in client_runs)
    print(f"  client : {rate:9.0f} req/s  {cpu:5.1f} µs CPU/req   runs {client_rates}"
          f"   fast p99 {fast_p99:.1f} ms" + (f", slow p50 {slow_p50:.0f} ms" if slow_every else ""))
    print(f"  ratio  : {rate / h2_rate:9.1%}   ({requests} requests, -c {connections} -m {streams})", flush=True)
    return rate / h2_rate, cpu


def main():
    hb.require("nghttpd", "h2load", "openssl", "haproxy")
    binary = build()
    work = tempfile.mkdtemp(prefix="herald-bench-client-")
    ca, cert, key = hb.make_tls(work)
    print(f"bench/client  N={N}  (h2load and HTTP2Client in turn, {ROUNDS} rounds, medians)", flush=True)

    port = hb.free_port()
    server = subprocess.Popen(hb.nghttpd_command(port, key, cert), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        scenario("a) next door: nghttpd --echo-upload", binary, f"https://127.0.0.1:{port}", ca, work, N, 4, 100, 0)
    finally:
        server.terminate()
        server.wait()

    for label, delay, slow, requests, streams, slow_every in [
        ("a') next door: HAProxy sink, no delay", 0, None, N, 100, 0),
        ("b) 40 ms: HAProxy sink", 40, None, N, 250, 0),
        ("c) 40 ms, one in ten after 2 s: HAProxy sink", 40, "c0ffee", int(N / 2.5), 250, 10),
    ]:
        port = hb.free_port()
        sink = hb.haproxy_sink(work, port, cert, key, delay_ms=delay, slow_prefix=slow)
        try:
            scenario(label, binary, f"https://127.0.0.1:{port}", ca, work, requests, 4, streams, slow_every)
        finally:
            sink.terminate()
            sink.wait()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
