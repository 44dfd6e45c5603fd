#!/usr/bin/env python3
"""bench/campaign/import: N users (default 1,000,000), each with attributes and one device, generated as NDJSON
while they are sent (chunked, so neither side holds the file) to `POST /api/admin/businesses/{id}/users/import`
of a release-built `herald serve` on SQLite, or on a throwaway PostgreSQL (scripts/postgres, shared_buffers=512MB),
or on each in turn (`--database both`: SQLite first, the reference, then PostgreSQL and its rate over SQLite's).
Prints the import rate, the server's peak RSS (VmHWM) and the database's size; then how long segment counts over the
imported devices take (`GET …/segments/{sid}`), and imports the same file again (every user found, nothing written).

    bench/campaign/import [users] [--database sqlite|postgres|both]     (default 1000000 users, sqlite)
    HERALD_BENCH_KEEP=1 bench/campaign/import     (keeps the data dir, printed, for the campaign bench)
    HERALD_BENCH_BINARY=.build/release/herald …   (uses that binary instead of building one)

A line looks like
{"external_id":"u42","email":"user42@example.com","first_name":"User","last_name":"42",
 "attributes":{"tier":"gold","age":59,"city":"Brooklyn"},
 "devices":[{"install_id":"install-42","platform":"android","push_token":"fcm-42-…"}]}
"""
import http.client
import json
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

USERS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1_000_000
DATABASES = {"sqlite": ["sqlite"], "postgres": ["postgres"], "both": ["sqlite", "postgres"]}[
    sys.argv[sys.argv.index("--database") + 1] if "--database" in sys.argv else "sqlite"]
POSTGRES_OPTIONS = "-c shared_buffers=512MB"
TIERS = ("bronze", "silver", "gold", "platinum")
CITIES = ("Brooklyn", "Queens", "Paris", "Lyon", "Austin")


def lines(count):
    """The NDJSON body in pieces of 1,000 lines."""
    piece = []
    for n in range(count):
        if n % 2:
            device = f'{{"install_id":"install-{n}","platform":"android","push_token":"fcm-{n}-{"x" * 140}"}}'
        else:
            device = f'{{"install_id":"install-{n}","platform":"ios","push_token":"{n:064x}"}}'
        piece.append(
            f'{{"external_id":"u{n}","email":"user{n}@example.com","first_name":"User","last_name":"{n}",'
            f'"attributes":{{"tier":"{TIERS[n % 4]}","age":{18 + n % 60},"city":"{CITIES[n % 5]}"}},'
            f'"devices":[{device}]}}\n')
        if len(piece) == 1000:
            yield "".join(piece).encode()
            piece = []
    if piece:
        yield "".join(piece).encode()


class Sampler(threading.Thread):
    """Samples the server's RSS every 100 ms (VmHWM gives the peak; this gives the curve's shape)."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.running = pid, [], True

    def run(self):
        while self.running:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        self.samples.append(int(line.split()[1]) / 1024)
            time.sleep(0.1)


def import_users(port, business, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    started = time.monotonic()
    connection.request(
        "POST", f"/api/admin/businesses/{business}/users/import", body=lines(count), encode_chunked=True,
        headers={"Authorization": "Bearer bench-admin-token", "Content-Type": "application/x-ndjson",
                 "Transfer-Encoding": "chunked"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    elapsed = time.monotonic() - started
    assert response.status == 200, answer
    return answer, elapsed


def main():
    binary = os.environ.get("HERALD_BENCH_BINARY") or hb.build_release()
    rates = {database: run(binary, database) for database in DATABASES}
    if len(rates) == 2:
        print(f"PostgreSQL / SQLite: {rates['postgres'] / rates['sqlite']:.0%} "
              f"({rates['postgres']:,.0f} vs {rates['sqlite']:,.0f} lines/s)   goal ≥ 70 %")


def run(binary, database):
    """Imports USERS into a fresh server on `database`; returns its lines/s."""
    work = tempfile.mkdtemp(prefix="herald-import-")
    pg = hb.Postgres(POSTGRES_OPTIONS) if database == "postgres" else None
    herald = hb.Herald(binary, os.path.join(work, "data"), {"HERALD_DATABASE": pg.url} if pg else {})
    print(f"-- {database}", flush=True)
    try:
        business = herald.admin("POST", "/api/admin/businesses", {"name": "Bench Co"})["id"]
        rss_start = herald.peak_rss_mb()
        sampler = Sampler(herald.process.pid)
        sampler.start()
        answer, elapsed = import_users(herald.port, business, USERS)
        sampler.running = False
        assert answer["created"] == USERS and answer["rejected_count"] == 0, answer
        peak = herald.peak_rss_mb()
        if pg:
            size = int(pg.psql("SELECT pg_database_size('herald')")[0][0])
        else:
            file = os.path.join(work, "data", "herald.db")
            size = sum(os.path.getsize(file + suffix) for suffix in ("", "-wal") if os.path.exists(file + suffix))
        print(f"import: {USERS:,} users with one device each in {elapsed:.1f} s: {USERS / elapsed:,.0f} lines/s")
        print(f"server RSS: {rss_start:.0f} MB before, peak {peak:.0f} MB (VmHWM), "
              f"last {sampler.samples[-1] if sampler.samples else float('nan'):.0f} MB; database {size / 1e6:.0f} MB")

        for name, segment_filter in [
            ("everyone", {"all": []}),
            ("gold", {"attribute": "tier", "op": "eq", "value": "gold"}),
            ("gold or over 70 on iOS", {"all": [{"any": [{"attribute": "tier", "op": "eq", "value": "gold"},
                                                         {"attribute": "age", "op": "gt", "value": 70}]},
                                                {"platform": "ios"}]}),
            ("in two cities", {"attribute": "city", "op": "in", "value": ["Paris", "Lyon"]}),
        ]:
            created = herald.admin("POST", f"/api/admin/businesses/{business}/segments",
                                   {"name": name, "filter": segment_filter})
            timings = []
            for _ in range(3):
                started = time.monotonic()
                shown = herald.admin("GET", f"/api/admin/businesses/{business}/segments/{created['id']}")
                timings.append(time.monotonic() - started)
            print(f"segment count '{name}': {shown['count']:,} devices in {min(timings) * 1000:.0f} ms "
                  f"(best of 3)")

        rate = USERS / elapsed
        again, elapsed = import_users(herald.port, business, USERS)
        assert again["created"] == 0 and again["updated"] == USERS, again
        print(f"re-import (nothing changes): {USERS / elapsed:,.0f} lines/s; "
              f"peak RSS {herald.peak_rss_mb():.0f} MB")
        return rate
    finally:
        herald.stop()
        if pg:
            pg.stop()
        if os.environ.get("HERALD_BENCH_KEEP"):
            print(f"data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
