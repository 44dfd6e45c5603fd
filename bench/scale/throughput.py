#!/usr/bin/env python3
"""bench/scale/throughput: pushes/s of one `herald serve` on SQLite (the reference), then of 1, 2 and 3 nodes on one
PostgreSQL, against the same fast HTTP/2 server (nghttpd --echo-upload, as bench/delivery), next to h2load against that
server in the same run; and what caps each run, measured while it runs:

  - CPU of every process group (/proc): the nodes, PostgreSQL (postmaster and backends), nghttpd, and the machine's
    idle time — on this 2-core machine, all of them share the two cores;
  - the statements PostgreSQL spent its time on (pg_stat_statements: total execution time, calls, rows), and their
    total a push;
  - PostgreSQL's sessions sampled every 100 ms from pg_stat_activity: how many are active on CPU, active waiting
    (and on what: Lock/transactionid, LWLock/WALWrite, IO/…), or idle in transaction (waiting for a node).

    bench/scale/throughput [N] [--nodes 1,2,3] [--binary PATH] [--no-sqlite]     (default N = 100,000)
    HERALD_DELIVERY_MIN_CONCURRENCY=512 bench/scale/throughput …      (a fixed window on every node)

Each run re-queues the same N pushes (one transaction), with the nodes already started and idle; the rate is N
over the span from the first delivery's write to the last one's (`deliveries.updated_at`, written by the nodes).
The SQLite node gets the same N pushes written into its database file the same way.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import shutil
import sqlite3
import uuid

sys.path.insert(0, os.path.dirname(__file__))
import cluster  # noqa: E402
from cluster import hb  # noqa: E402

TOKEN = "ab" * 32
PAYLOAD = ('{"aps":{"alert":{"title":"Flash sale","subtitle":"Today only","body":"Everything is half price until 6pm!"},'
           '"sound":"default","badge":1},"n":123456,"u":654321}')


class WaitSampler(threading.Thread):
    """pg_stat_activity every 100 ms over one psql session (`\\watch`), counted by (state, wait event)."""

    QUERY = ("SELECT state, COALESCE(wait_event_type || '/' || wait_event, 'CPU') FROM pg_stat_activity "
             "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'")

    def __init__(self, url):
        super().__init__(daemon=True)
        self.counts = collections.Counter()
        self.samples = 0
        self.process = subprocess.Popen(["psql", url, "-X", "-A", "-t", "-F", "\t", "-q"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.process.stdin.write(f"SELECT 'sample';\n{self.QUERY} UNION ALL SELECT 'sample', '' \\watch 0.1\n")
        self.process.stdin.flush()
        self.recording = False

    def run(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            if not line or not self.recording:
                continue
            if line.startswith("sample"):
                self.samples += 1
            else:
                self.counts[tuple(line.split("\t"))] += 1

    def stop(self):
        self.process.terminate()


def h2load(port, payload_file, n):
    out = subprocess.run(["h2load", "-n", str(n), "-c", "4", "-m", "100", f"--data={payload_file}",
                          "-H", f"apns-topic: {cluster.TOPIC}", "-H", "apns-push-type: alert",
                          f"https://127.0.0.1:{port}/3/device/{TOKEN}"], capture_output=True, text=True).stdout
    match = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out)
    if not match or " 0 errored" not in out:
        print("h2load did not finish cleanly:\n" + out[-1500:], flush=True)
    return float(match.group(1)) if match else float("nan")


def sqlite_run(binary, work, env, total):
    """One node on SQLite with the same N pushes: (pushes/s, node CPU a push in µs, span in s, statuses, cores)."""
    data = os.path.join(work, "sqlite")
    node = hb.Herald(binary, data, env, ["--no-delivery"])
    business, _ = cluster.setup_business(node, work)
    node.stop()
    db = sqlite3.connect(os.path.join(data, "herald.db"), timeout=60)
    rows = range(1, total + 1)
    with db:
        db.executemany("INSERT INTO users (id, business_id, email, password_hash, first_name, last_name, created_at, "
                       "updated_at) VALUES (?, ?, ?, 'x', 'Scale', 'User', 0, 0)",
                       ((i, business, f"u{i}@example.com") for i in rows))
        db.executemany("INSERT INTO devices (id, business_id, user_id, device_key, platform, token, token_updated_at, "
                       "created_at, updated_at) VALUES (?, ?, ?, ?, 'apns', ?, 0, 0, 0)",
                       ((i, business, i, f"d{i}", f"{i:064x}") for i in rows))
        db.executemany("INSERT INTO notifications (id, business_id, user_id, kind, event, title, subtitle, body, sound, "
                       "extras, push_style, visible, created_at) VALUES (?, ?, ?, 'news', 'news', 'Flash sale', "
                       "'Today only', 'Everything is half price until 6pm!', 'default', ?, 'alert', 1, 0)",
                       ((i, business, i, f'{{"u":{i}}}') for i in rows))
        db.executemany("INSERT INTO deliveries (notification_id, business_id, device_id, platform, status, attempts, "
                       "next_attempt_at, apns_id, created_at, updated_at) VALUES (?, ?, ?, 'apns', 'delivered', 0, 0, "
                       "?, 0, 0)", ((i, business, i, str(uuid.uuid4())) for i in rows))
    db.execute("ANALYZE")
    node = hb.Herald(binary, data, env)
    try:
        time.sleep(1)
        cpu_before = node.cpu_seconds()
        wall_before = time.monotonic()
        with db:
            db.execute("UPDATE deliveries SET status = 'queued', attempts = 0, next_attempt_at = 0, lease_owner = NULL, "
                       "lease_until = NULL, provider_message_id = NULL, updated_at = 0")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and db.execute(
                "SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'queued') "
                "OR EXISTS (SELECT 1 FROM deliveries WHERE status = 'sending')").fetchone()[0]:
            time.sleep(0.25)
        wall = time.monotonic() - wall_before
        cpu = node.cpu_seconds() - cpu_before
        first, last, statuses = db.execute(
            "SELECT MIN(updated_at), MAX(updated_at), group_concat(DISTINCT status) FROM deliveries").fetchone()
    finally:
        node.stop()
        db.close()
    span = (last - first) / 1000
    return total / span, cpu / total * 1e6, span, statuses, cpu / wall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pushes", nargs="?", type=int, default=100_000)
    parser.add_argument("--nodes", default="1,2,3")
    parser.add_argument("--binary", default=os.environ.get("HERALD_BENCH_BINARY"))
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite reference")
    args = parser.parse_args()
    total = args.pushes
    counts = [int(c) for c in args.nodes.split(",")]
    hb.require("nghttpd", "h2load", "openssl", "psql")
    binary = args.binary or hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-scale-")
    ca, cert, key = hb.make_tls(work)
    port = hb.free_port()
    server = subprocess.Popen(hb.nghttpd_command(port, key, cert), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    payload_file = os.path.join(work, "payload.json")
    with open(payload_file, "w") as f:
        f.write(PAYLOAD)
    env = {"HERALD_APNS_URL": f"https://127.0.0.1:{port}", "HERALD_CA_FILE": ca}
    sqlite_result = None
    if not args.no_sqlite:
        reference = [h2load(port, payload_file, total)]
        rate, cpu_push, span, statuses, cores = sqlite_run(binary, work, env, total)
        reference.append(h2load(port, payload_file, total))
        h2 = sum(reference) / len(reference)
        sqlite_result = (rate, h2, reference, cpu_push)
        print(f"SQLite, 1 node: {rate:,.0f} pushes/s ({span:.1f} s), h2load {h2:,.0f} req/s "
              f"({', '.join(f'{r:,.0f}' for r in reference)}), ratio {rate / h2:.1%}; statuses {statuses}; "
              f"node {cores:.2f} cores, {cpu_push:.0f} µs CPU per push (the database in it)", flush=True)
    pg = cluster.Postgres("-c shared_preload_libraries=pg_stat_statements -c shared_buffers=512MB")
    pg.psql("CREATE EXTENSION pg_stat_statements")
    results = []
    try:
        setup = cluster.Node(binary, work, 0, pg.url, env, ["--no-delivery"])
        business, _ = cluster.setup_business(setup, work)
        setup.stop()
        cluster.queue_pushes(pg, business, total)
        pg.psql("BEGIN; UPDATE deliveries SET status = 'delivered'; DELETE FROM delivery_due; COMMIT")
        pg.psql("VACUUM FULL deliveries")
        pg.psql("VACUUM ANALYZE")
        server_pids = [server.pid] + [int(p) for p in subprocess.run(
            ["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()]
        for count in counts:
            reference = [h2load(port, payload_file, total)]
            nodes = [cluster.Node(binary, work, i, pg.url, env) for i in range(1, count + 1)]
            time.sleep(1)
            sampler = WaitSampler(pg.url)
            sampler.start()
            pg_pids = pg.backend_pids()
            groups = {"nodes": [n.process.pid for n in nodes], "postgres": pg_pids, "nghttpd": server_pids}
            before = {g: sum(hb.process_cpu_seconds(p) for p in pids) for g, pids in groups.items()}
            machine_before = cluster.machine_cpu()
            pg_before = pg.cpu_seconds()
            wall_before = time.monotonic()
            pg.psql("SELECT pg_stat_statements_reset()")
            sampler.recording = True
            cluster.requeue(pg)
            # Done when no job is due or leased: the due table empty, and no claim holding a job not yet answered
            # (cheap reads: counting `deliveries` took a visible share of PostgreSQL's CPU from what is measured).
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and pg.psql(
                    "SELECT EXISTS (SELECT 1 FROM delivery_due) OR EXISTS (SELECT 1 FROM deliveries WHERE id IN "
                    "(SELECT unnest(jobs) FROM delivery_claims) AND status = 'sending')")[0][0] == "t":
                time.sleep(0.25)
            sampler.recording = False
            wall = time.monotonic() - wall_before
            pg_pids = pg.backend_pids()  # backends come and go: sum the ones alive at the end, too
            groups["postgres"] = sorted(set(groups["postgres"]) | set(pg_pids))
            after = {g: sum(hb.process_cpu_seconds(p) for p in pids) for g, pids in groups.items()}
            machine_after = cluster.machine_cpu()
            pg_after = pg.cpu_seconds()
            first, last, statuses = pg.psql(
                "SELECT MIN(updated_at), MAX(updated_at), string_agg(DISTINCT status, ',') FROM deliveries")[0]
            span = (int(last) - int(first)) / 1000
            rate = total / span
            statement_ms = float(pg.psql(
                "SELECT COALESCE(SUM(total_exec_time), 0) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' "
                "AND query NOT LIKE '%EXISTS%' AND query NOT LIKE '%DELETE FROM delivery_claims; DELETE%'")[0][0])
            top = pg.psql(
                "SELECT round(total_exec_time::numeric, 0), calls, rows, "
                "regexp_replace(left(query, 90), '\\s+', ' ', 'g') FROM pg_stat_statements "
                "WHERE query NOT LIKE '%pg_stat%' AND query NOT LIKE '%EXISTS%' AND calls > 1 ORDER BY total_exec_time DESC LIMIT 5")
            windows = [n.window() for n in nodes]
            outcomes = [n.outcomes() for n in nodes]
            rss = [n.peak_rss_mb() for n in nodes]
            for node in nodes:
                node.stop()
            sampler.stop()
            reference.append(h2load(port, payload_file, total))
            h2 = sum(reference) / len(reference)
            cores = {g: (after[g] - before[g]) / wall for g in groups}
            cores["postgres"] = (pg_after - pg_before) / wall  # ended backends' CPU included
            busy = (machine_after[0] - machine_before[0]) / (machine_after[1] - machine_before[1]) * os.cpu_count()
            waits = {k: v / max(1, sampler.samples) for k, v in sampler.counts.most_common(6)}
            pg_push = cores['postgres'] * wall / total * 1e6
            statements_push = statement_ms * 1000 / total
            results.append((count, rate, h2, reference, cores, busy, waits, span, windows, rss, statuses, pg_push,
                            statements_push))
            print(f"{count} node(s): {rate:,.0f} pushes/s ({span:.1f} s), h2load {h2:,.0f} req/s "
                  f"({', '.join(f'{r:,.0f}' for r in reference)}), ratio {rate / h2:.1%}; statuses {statuses}",
                  flush=True)
            print(f"   CPU (cores, of {os.cpu_count()}): machine busy {busy:.2f}; nodes {cores['nodes']:.2f}, "
                  f"PostgreSQL {cores['postgres']:.2f}, nghttpd {cores['nghttpd']:.2f}; "
                  f"node CPU per push {cores['nodes'] * wall / total * 1e6:.0f} µs, "
                  f"PostgreSQL CPU per push {pg_push:.0f} µs (its statements' time {statements_push:.0f} µs)",
                  flush=True)
            print("   PostgreSQL sessions, mean per 100 ms sample: "
                  + ", ".join(f"{state} {event} {n:.2f}" for (state, event), n in waits.items()), flush=True)
            for ms, calls, rows, query in top:
                print(f"   statement {int(ms) / 1000:6.2f} s in {int(calls):,} calls ({int(rows):,} rows): {query}")
            print("   outcomes by node (a push handed back unsent is claimed again): " + "; ".join(
                ", ".join(f"{k} {v:,}" for k, v in sorted(o.items())) for o in outcomes), flush=True)
            print(f"   windows at the end {', '.join(f'{w:.0f}' for w in windows)}; peak RSS "
                  f"{', '.join(f'{r:.0f}' for r in rss)} MB", flush=True)
        print("\nbench/scale/throughput  N =", f"{total:,}")
        print("| database, nodes | pushes/s | vs SQLite | h2load (before, after) | ratio | machine CPU busy | nodes "
              "| PostgreSQL | nghttpd | PostgreSQL CPU a push | its statements' time a push |")
        if sqlite_result:
            rate, h2, reference, cpu_push = sqlite_result
            print(f"| SQLite, 1 | {rate:,.0f} | 100 % | {h2:,.0f} ({', '.join(f'{r:,.0f}' for r in reference)}) "
                  f"| {rate / h2:.1%} | | {cpu_push:.0f} µs a push | | | | |")
        for (count, rate, h2, reference, cores, busy, waits, span, windows, rss, statuses, pg_push,
             statements_push) in results:
            versus = f"{rate / sqlite_result[0]:.0%}" if sqlite_result else "—"
            print(f"| PostgreSQL, {count} | {rate:,.0f} | {versus} | {h2:,.0f} "
                  f"({', '.join(f'{r:,.0f}' for r in reference)}) | {rate / h2:.1%} | {busy:.2f} cores "
                  f"| {cores['nodes']:.2f} | {cores['postgres']:.2f} | {cores['nghttpd']:.2f} | {pg_push:.0f} µs "
                  f"| {statements_push:.0f} µs |")
    finally:
        pg.stop()
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
