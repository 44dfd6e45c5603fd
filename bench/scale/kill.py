#!/usr/bin/env python3
"""bench/scale/kill: several `herald serve` nodes on one PostgreSQL share a queue of N pushes to the APNs stand-in
(Tests/StandIns); one node is killed with SIGKILL mid-run. Checks, and exits 1 if any fails:

  - every push is delivered (every delivery row `delivered`, the stand-in accepted every apns-id): none lost;
  - re-sends carry the same apns-id (the stand-in saw exactly N distinct apns-ids, no new one for a re-send);
  - pushes sent twice are no more than what the dead node held at the kill (its leased rows, read from the
    database right after the kill: claimed and not yet sent, in flight, or answered and not yet written), and,
    when the stand-in's records are read (N ≤ 20,000), every apns-id sent twice is one of those.

    bench/scale/kill [N] [--nodes 3] [--lease SECONDS] [--binary PATH]
        N: pushes (default 100,000); --lease: the nodes' --delivery-lease (default 60 s, the product's: how long the dead node's
        claims wait before another node takes them); --binary: a built herald (default: a release build).

scripts/test runs a small one (3 nodes, 3,000 pushes, 10 s lease, the debug build) on every CI run.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import cluster  # noqa: E402
from cluster import hb  # noqa: E402

sys.path.insert(0, os.path.join(cluster.ROOT, "Tests", "Browser"))
import openapi_check  # noqa: E402


class StandIn:
    """Tests/StandIns/standin.py on ephemeral ports (it exits when our end of its stdin closes)."""

    def __init__(self, work):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(cluster.ROOT, "Tests", "StandIns", "standin.py"), "--workdir", work],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            sys.exit("the stand-in did not start (pip install -r Tests/StandIns/requirements.txt)")
        announced = json.loads(line)
        self.apns_url, self.ca_file, self.control = announced["apns_url"], announced["ca_file"], announced["control_url"]

    def call(self, method, path, body=None):
        request = urllib.request.Request(self.control + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    def apns(self):
        return self.call("GET", "/stats")["apns"]

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pushes", nargs="?", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--lease", type=int, default=60)
    parser.add_argument("--binary", default=os.environ.get("HERALD_BENCH_BINARY"))
    args = parser.parse_args()
    total = args.pushes
    binary = args.binary or hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-scale-kill-")
    pg = cluster.Postgres()
    standin = StandIn(os.path.join(work, "standin"))
    nodes = []
    failures = []
    try:
        env = {"HERALD_APNS_URL": standin.apns_url, "HERALD_CA_FILE": standin.ca_file, "HERALD_PASSWORD_COST": "1024"}
        node_args = ["--delivery-lease", str(args.lease)]
        first = cluster.Node(binary, work, 1, pg.url, env, node_args)
        nodes.append(first)
        business, p8 = cluster.setup_business(first, work)
        # The answers of the admin calls, as docs/openapi.json describes them (the build's openapi-check judges).
        try:
            failures += openapi_check.check([openapi_check.exchange(*answer) for answer in first.answers])
        except RuntimeError as error:
            print(f"  answers not checked against docs/openapi.json: {error}", flush=True)
        public = subprocess.run(["openssl", "ec", "-in", p8, "-pubout"], check=True, capture_output=True,
                                text=True).stdout
        standin.call("POST", "/apns/keys", {"key_id": "SCALE12345", "team_id": "TEAM123456", "topic": cluster.TOPIC,
                                            "public_key_pem": public})
        # The stand-in's 20-minute token refresh rule stays on: every node sends with the one provider token stored
        # in the database (the first to need one signs it), whoever restarts.
        first.stop()  # the pushes are queued while no node runs, then every node starts on a full queue
        nodes.clear()
        cluster.queue_pushes(pg, business, total)
        for index in range(1, args.nodes + 1):
            nodes.append(cluster.Node(binary, work, index, pg.url, env, node_args))
        started = time.monotonic()
        print(f"kill: {total:,} pushes queued, {args.nodes} nodes on one PostgreSQL, lease {args.lease} s", flush=True)

        # Kill one node a third of the way through.
        victim = nodes[1 % len(nodes)]
        accepted = 0
        while accepted < total // 3 and time.monotonic() - started < 300:
            accepted = standin.apns()["accepted"]
            time.sleep(0.02)
        window = victim.window()
        victim.kill()
        killed_at = time.monotonic()
        held = pg.psql(f"SELECT apns_id FROM deliveries WHERE status = 'sending' AND lease_owner = '{victim.node_id}'")
        held_ids = {row[0] for row in held}
        accepted_at_kill = standin.apns()["accepted"]
        print(f"  node {victim.index} killed after {accepted_at_kill:,} accepted ({killed_at - started:.1f} s): it held"
              f" {len(held_ids)} leased pushes (window {window:.0f} in flight just before)", flush=True)
        if accepted_at_kill >= total:
            failures.append("the kill came after the last push")

        # The others finish, the dead node's leases included once they run out.
        deadline = time.monotonic() + max(300, total / 500)
        left = total
        while left and time.monotonic() < deadline:
            left = pg.scalar("SELECT COUNT(*) FROM deliveries WHERE status <> 'delivered'")
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        statuses = dict(pg.psql("SELECT status, COUNT(*) FROM deliveries GROUP BY status"))
        stats = standin.apns()
        duplicates = stats["duplicate_apns_ids"]
        print(f"  done in {elapsed:.1f} s: deliveries {statuses}; stand-in accepted {stats['accepted']:,}, "
              f"distinct apns-ids {stats['distinct_apns_ids']:,} (accepted {stats['distinct_accepted_apns_ids']:,}), "
              f"sent twice {duplicates}; rejected {stats['rejected_by_reason'] or 'none'}; at most"
              f" {stats['max_open_connections']} connections open at once, {stats['connections']} opened in all"
              f" (--provider-connections 4 for the fleet)")
        if left:
            failures.append(f"{left} pushes not delivered: {statuses}")
        if stats["distinct_accepted_apns_ids"] != total:
            failures.append(f"the stand-in accepted {stats['distinct_accepted_apns_ids']} distinct apns-ids, not {total}")
        if stats["distinct_apns_ids"] != total:
            failures.append(f"{stats['distinct_apns_ids']} distinct apns-ids reached the stand-in for {total} pushes:"
                            " a re-send carried a new apns-id")
        if duplicates > len(held_ids):
            failures.append(f"{duplicates} pushes sent twice, more than the {len(held_ids)} the dead node held")
        if total <= 20_000:
            records = standin.call("GET", "/apns/requests")
            seen = {}
            for record in records:
                if record.get("status") == 200:
                    seen[record["apns_id"]] = seen.get(record["apns_id"], 0) + 1
            twice = {apns_id for apns_id, count in seen.items() if count > 1}
            database_ids = {row[0] for row in pg.psql("SELECT apns_id FROM deliveries")}
            if set(seen) != database_ids:
                failures.append("the apns-ids accepted are not the queue's")
            if not twice <= held_ids:
                failures.append(f"{len(twice - held_ids)} pushes sent twice were not the dead node's")
            print(f"  records: {len(records):,} requests; every apns-id sent twice was one the dead node held:"
                  f" {twice <= held_ids}")
    finally:
        for node in nodes:
            if node.process.poll() is None:
                node.stop()
        standin.stop()
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("FAILED: " + "; ".join(failures))
        sys.exit(1)
    print("kill: passed (none lost, same apns-ids, duplicates within what the dead node held)")


if __name__ == "__main__":
    main()
