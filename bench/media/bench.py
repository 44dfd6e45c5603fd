#!/usr/bin/env python3
"""bench/media: a ~200 KB JPEG uploaded through the admin API, then downloaded from Herald's /media/ with wrk
(-t2 -c64 --latency), and, in the same run, the same bytes from nginx (Debian's, `sendfile on`, run in the
foreground with its own temporary prefix). One more pass on each asks for `Range: bytes=0-65535`.
Prints req/s, MiB/s, p99 and the Herald / nginx ratio.

    bench/media/run [seconds]            (default 10 s per pass; HERALD_BENCH_ROUNDS rounds, default 2, best shown)
    HERALD_BENCH_PERF=1 bench/media/run  (also `perf record -g` Herald during its full-file pass; report in the
                                          work dir)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
ROUNDS = int(os.environ.get("HERALD_BENCH_ROUNDS", "2"))
RANGE = "Range: bytes=0-65535"
SIZE = 200 * 1024
NGINX_CONF = """
worker_processes {workers};
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    types {{ image/jpeg jpg; }}
    server {{
        listen 127.0.0.1:{port};
        root {prefix}/www;
        location /media/ {{ add_header Cache-Control "public, max-age=31536000, immutable"; }}
    }}
}}
"""
UNITS = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


def wrk(url, header=None):
    args = ["wrk", "-t2", "-c64", f"-d{SECONDS}s", "--latency", url]
    if header:
        args[1:1] = ["-H", header]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    transfer = re.search(r"Transfer/sec:\s+([\d.]+)(B|KB|MB|GB)", out)
    mib = float(transfer.group(1)) * UNITS[transfer.group(2)] / 1024 ** 2
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "mib": mib, "p99": p99_ms, "non2xx": int(non2xx.group(1)) if non2xx else 0,
            "errors": errors.group(1) if errors else ""}


def cpu_seconds(pid):
    """User + system CPU time of `pid` and its child processes (nginx's workers), in seconds."""
    pids = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            pids += [int(child) for child in f.read().split()]
    return sum(hb.process_cpu_seconds(each) for each in pids)


def measured(pid, url, header=None):
    """A wrk pass, with the server's CPU microseconds per request."""
    before = cpu_seconds(pid)
    result = wrk(url, header)
    result["cpu_us"] = (cpu_seconds(pid) - before) * 1e6 / (result["rps"] * SECONDS)
    return result


def best(passes):
    """The pass with the most requests per second: on a shared machine the others lost time to neighbours."""
    return max(passes, key=lambda result: result["rps"])


def fetch(url, headers=None):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as response:
        return response.status, response.read()


def start_nginx(work, name, body):
    prefix = os.path.join(work, "nginx")
    os.makedirs(os.path.join(prefix, "www", "media"))
    for path in (work, prefix, os.path.join(prefix, "www"), os.path.join(prefix, "www", "media")):
        os.chmod(path, 0o755)  # nginx's workers may run as another user
    with open(os.path.join(prefix, "www", "media", name), "wb") as f:
        f.write(body)
    port = hb.free_port()
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(prefix=prefix, port=port, workers=os.cpu_count() or 2))
    process = subprocess.Popen(["nginx", "-p", prefix, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            fetch(f"http://127.0.0.1:{port}/media/{name}")
            return process, port
        except OSError:
            if process.poll() is not None:
                sys.exit(f"nginx did not start: {process.stderr.read().decode()}")
            time.sleep(0.05)
    sys.exit("nginx did not answer")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def line(label, result):
    return (f"  {label:<34}: {result['rps']:9.0f} req/s  {result['mib']:8.1f} MiB/s  p99 {result['p99']:7.2f} ms"
            f"  server CPU {result['cpu_us']:5.1f} us/req  non-2xx {result['non2xx']}"
            f"{'  socket errors: ' + result['errors'] if result['errors'] else ''}")


def main():
    hb.require("wrk", "nginx")
    binary = hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-bench-media-")
    herald = hb.Herald(binary, os.path.join(work, "data"))
    nginx = None
    perf = None
    try:
        business = herald.admin("POST", "/api/admin/businesses", {"name": "Bench Co"})
        body, path = herald.upload_jpeg(business["id"], SIZE)
        name = path.rsplit("/", 1)[1]
        herald_url = f"http://127.0.0.1:{herald.port}/media/{name}"
        status, served = fetch(herald_url)
        assert status == 200 and served == body, "herald serves other bytes"
        status, part = fetch(herald_url, {"Range": "bytes=0-65535"})
        assert status == 206 and part == body[:65536], "herald's range is wrong"

        nginx, nginx_port = start_nginx(work, name, body)
        nginx_url = f"http://127.0.0.1:{nginx_port}/media/{name}"
        status, served = fetch(nginx_url)
        assert status == 200 and served == body, "nginx serves other bytes"

        print(f"measuring: herald pid {herald.process.pid}, nginx pid {nginx.pid}; {len(body)} bytes", flush=True)
        if os.environ.get("HERALD_BENCH_PERF"):
            perf = subprocess.Popen(["perf", "record", "-F", "999", "-g", "-p", str(herald.process.pid),
                                     "-o", os.path.join(work, "perf.data")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        passes = {key: [] for key in ("herald_full", "nginx_full", "herald_range", "nginx_range")}
        for round in range(ROUNDS):  # interleaved, so a noisy neighbour hurts both servers alike
            passes["herald_full"].append(measured(herald.process.pid, herald_url))
            if perf and round == 0:
                perf.send_signal(2)
                perf.wait()
                with open(os.path.join(work, "perf.txt"), "w") as out:
                    subprocess.run(["perf", "report", "-i", os.path.join(work, "perf.data"), "--stdio",
                                    "--no-children", "--percent-limit", "1"], stdout=out, stderr=subprocess.DEVNULL)
                print(f"perf report: {os.path.join(work, 'perf.txt')}")
            passes["nginx_full"].append(measured(nginx.pid, nginx_url))
            passes["herald_range"].append(measured(herald.process.pid, herald_url, RANGE))
            passes["nginx_range"].append(measured(nginx.pid, nginx_url, RANGE))
        herald_full, nginx_full, herald_range, nginx_range = (best(passes[key]) for key in passes)
        for key, results in passes.items():
            print(f"  {key:<13} req/s per round: " + ", ".join(f"{r['rps']:.0f}" for r in results))

        print(f"bench/media  wrk -t2 -c64 -d{SECONDS}s --latency, {len(body)} byte JPEG, loopback, "
              f"{os.cpu_count()} cores, best of {ROUNDS} interleaved rounds (access log at warning / off)")
        print(line("Herald GET /media/<sha>.jpg", herald_full))
        print(line("nginx  GET (sendfile on)", nginx_full))
        print(f"  ratio Herald / nginx              : {herald_full['rps'] / nginx_full['rps']:9.1%}")
        print(line("Herald Range: bytes=0-65535 (206)", herald_range))
        print(line("nginx  Range: bytes=0-65535 (206)", nginx_range))
        print(f"  ratio Herald / nginx (range)      : {herald_range['rps'] / nginx_range['rps']:9.1%}")
        print(f"  Herald peak RSS                   : {herald.peak_rss_mb():9.1f} MB")
    finally:
        if perf and perf.poll() is None:
            perf.kill()
            perf.wait()
        if nginx:
            stop(nginx)
        herald.stop()
        if not perf:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
