#!/usr/bin/env python3
"""bench/campaign/launch: imports N users (default 1,000,000, half iOS, half Android: bench/campaign/import's lines)
into a release-built `herald serve` on SQLite (or a throwaway PostgreSQL, or each in turn: `--database
postgres|both`, as bench/campaign/import), then launches a push campaign to a segment of all of them against a
fast local HTTP/2 server (bench/common's HAProxy sink, answering APNs and FCM sends 200 at once, and FCM's OAuth
token endpoint). Prints:

  - the time from the launch request to the last push accepted (the newest `deliveries.updated_at` of a delivered
    push, written when the answer is recorded), and the pushes/s that makes; goal < 60 s for 1,000,000;
  - the server's peak RSS (VmHWM, over its whole life: the import included); goal < 256 MB;
  - the report endpoint's latency on that campaign (`GET …/campaigns/{cid}/report`), while it sends and after;
  - h2load against the same sink in the same run (-c 4 -m 100, 200,000 requests): what the server itself allows.

    bench/campaign/launch [users] [--database sqlite|postgres|both]
    HERALD_BENCH_BINARY=.build/release/herald bench/campaign/launch     (uses that binary instead of building one)
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
sys.path.insert(0, os.path.dirname(__file__))
import herald_bench as hb  # noqa: E402
import import_users  # noqa: E402

USERS = import_users.USERS


def timed_get(herald, path):
    started = time.monotonic()
    answer = herald.admin("GET", path)
    return answer, (time.monotonic() - started) * 1000


def h2load(port, payload_file):
    out = subprocess.run(["h2load", "-n", "200000", "-c", "4", "-m", "100", f"--data={payload_file}",
                          "-H", "apns-topic: com.example.bench", "-H", "apns-push-type: alert",
                          f"https://127.0.0.1:{port}/3/device/{'ab' * 32}"], capture_output=True, text=True).stdout
    return float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1))


def main():
    hb.require("haproxy", "h2load", "openssl")
    binary = os.environ.get("HERALD_BENCH_BINARY") or hb.build_release()
    rates = {database: run(binary, database) for database in import_users.DATABASES}
    if len(rates) == 2:
        print(f"PostgreSQL / SQLite, launch → last push accepted: {rates['postgres'] / rates['sqlite']:.0%} "
              f"({rates['postgres']:,.0f} vs {rates['sqlite']:,.0f} pushes/s)   goal ≥ 70 %")


def run(binary, database):
    """The campaign on a fresh server on `database`; returns its pushes/s (launch to the last push accepted)."""
    print(f"-- {database}", flush=True)
    pg = hb.Postgres(import_users.POSTGRES_OPTIONS) if database == "postgres" else None
    work = tempfile.mkdtemp(prefix="herald-campaign-")
    ca, cert, key = hb.make_tls(work)
    port = hb.free_port()
    sink = hb.haproxy_sink(work, port, cert, key)
    payload_file = os.path.join(work, "payload.json")
    with open(payload_file, "w") as f:
        f.write('{"aps":{"alert":{"title":"Summer menu","body":"Our new menu is here. Come and try it!"}},"herald":{}}')
    data = os.path.join(work, "data")
    herald = hb.Herald(binary, data, {"HERALD_APNS_URL": f"https://127.0.0.1:{port}",
                                      "HERALD_FCM_URL": f"https://127.0.0.1:{port}", "HERALD_CA_FILE": ca,
                                      **({"HERALD_DATABASE": pg.url} if pg else {})})
    try:
        reference = [h2load(port, payload_file)]
        business = herald.admin("POST", "/api/admin/businesses", {"name": "Bench Co"})["id"]
        herald.admin("PUT", f"/api/admin/businesses/{business}/apns", hb.apns_credential(work))
        herald.admin("PUT", f"/api/admin/businesses/{business}/fcm", hb.fcm_credential(work, port))
        answer, elapsed = import_users.import_users(herald.port, business, USERS)
        assert answer["created"] == USERS and answer["rejected_count"] == 0, answer
        print(f"import: {USERS:,} users in {elapsed:.1f} s ({USERS / elapsed:,.0f} lines/s); "
              f"peak RSS so far {herald.peak_rss_mb():.0f} MB", flush=True)
        segment = herald.admin("POST", f"/api/admin/businesses/{business}/segments",
                               {"name": "everyone", "filter": {"all": []}})
        campaign = herald.admin("POST", f"/api/admin/businesses/{business}/campaigns", {
            "name": "Summer menu", "message": {"headline": "Summer menu", "body": "Our new menu is here. Come and try it!"},
            "audience": {"segment_id": segment["id"]}, "channels": ["push"], "trigger": {"type": "now"}})
        cid = campaign["id"]
        report_path = f"/api/admin/businesses/{business}/campaigns/{cid}/report"
        rss = import_users.Sampler(herald.process.pid)
        rss.start()
        cpu_before = herald.cpu_seconds()
        pg_before = pg.cpu_seconds() if pg else 0
        launched_at = time.time()
        started = time.monotonic()
        herald.admin("POST", f"/api/admin/businesses/{business}/campaigns/{cid}/launch")
        launch_answer_ms = (time.monotonic() - started) * 1000
        during = []
        report = {}
        progress = []
        while time.monotonic() - started < 1800:
            time.sleep(0.5)
            report, ms = timed_get(herald, report_path)
            during.append(ms)
            progress.append((time.monotonic() - started, report["targeted"], report["delivered"], report["failed"]))
            if report["targeted"] >= USERS and report["delivered"] + report["failed"] >= report["targeted"]:
                break
        finished = time.monotonic() - started
        cpu = herald.cpu_seconds() - cpu_before
        pg_after = pg.cpu_seconds() if pg else 0
        rss.running = False
        after = sorted(timed_get(herald, report_path)[1] for _ in range(50))
        peak = herald.peak_rss_mb()
        last_query = "SELECT MAX(updated_at) FROM deliveries WHERE status = 'delivered'"
        statuses_query = "SELECT status, COUNT(*) FROM deliveries GROUP BY status"
        pg_cpu = pg_after - pg_before
        if pg:
            last_ms = int(pg.psql(last_query)[0][0])
            statuses = {status: int(count) for status, count in pg.psql(statuses_query)}
        else:
            db = sqlite3.connect(f"file:{os.path.join(data, 'herald.db')}?mode=ro", uri=True, timeout=30)
            last_ms, statuses = db.execute(last_query).fetchone()[0], dict(db.execute(statuses_query).fetchall())
            db.close()
        to_last = last_ms / 1000 - launched_at
        reference.append(h2load(port, payload_file))
        during.sort()
        print(f"bench/campaign/launch  {USERS:,} devices (half APNs, half FCM), segment of everyone, channel push")
        print(f"  launch answered in {launch_answer_ms:.0f} ms; report: {json.dumps({k: report[k] for k in ('targeted', 'sent', 'delivered', 'failed')})}")
        print(f"  deliveries: {statuses}")
        print(f"  launch → last push accepted: {to_last:.1f} s  ({USERS / to_last:,.0f} pushes/s)   goal < 60 s"
              f"  (report saw the last at {finished:.1f} s)")
        print(f"  peak RSS {peak:.0f} MB (VmHWM; max sampled during the campaign "
              f"{max(rss.samples) if rss.samples else float('nan'):.0f} MB)   goal < 256 MB")
        print(f"  herald CPU during the campaign {cpu:.1f} s ({cpu / finished:.2f} cores, {cpu / USERS * 1e6:.0f} µs per push)")
        if pg:
            print(f"  PostgreSQL CPU during the campaign {pg_cpu:.1f} s ({pg_cpu / finished:.2f} cores, "
                  f"{pg_cpu / USERS * 1e6:.0f} µs per push)")
        print(f"  report latency while sending: median {during[len(during) // 2]:.1f} ms, max {during[-1]:.1f} ms"
              f" ({len(during)} reads); after: median {after[25]:.2f} ms, p98 {after[48]:.2f} ms (50 reads)")
        print(f"  h2load on the same sink (-c 4 -m 100): {', '.join(f'{r:,.0f}' for r in reference)} req/s (before, after)")
        steps = [p for i, p in enumerate(progress) if i % 10 == 0] + progress[-1:]
        print("  progress (s, targeted, delivered, failed): " + "; ".join(f"{t:.0f} {a} {d} {f}" for t, a, d, f in steps))
        assert statuses.get("delivered") == USERS, statuses
        return USERS / to_last
    finally:
        herald.stop()
        if pg:
            pg.stop()
        sink.terminate()
        sink.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
