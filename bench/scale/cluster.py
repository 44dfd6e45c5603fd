"""bench/scale's shared pieces: a throwaway PostgreSQL (scripts/postgres), psql, `herald serve` nodes on it, N
queued pushes written straight into the database, and per-process CPU from /proc."""
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

ROOT = hb.ROOT
TOPIC = "com.example.bench"


Postgres = hb.Postgres


class Node(hb.Herald):
    """One `herald serve` on the shared database, with a data dir of its own (its node id, the owner of its leases)."""

    def __init__(self, binary, work, index, database_url, env, args=()):
        data = os.path.join(work, f"node{index}")
        super().__init__(binary, data, dict(env, HERALD_DATABASE=database_url), args)
        self.index, self.data = index, data

    @property
    def node_id(self):
        with open(os.path.join(self.data, "node-id")) as f:
            return f.read().strip()

    def outcomes(self):
        """This node's sends and settlements so far by outcome (delivered, deferred, throttled, …), from /metrics."""
        counts = {}
        for outcome, count in re.findall(
                r'^herald_push_sends_total\{[^}]*outcome="([^"]+)"[^}]*\} (\S+)$', self.metrics(), re.M):
            counts[outcome] = counts.get(outcome, 0) + int(float(count))
        return counts

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def window(self):
        match = re.search(r"^herald_delivery_window (\S+)$", self.metrics(), re.M)
        return float(match.group(1)) if match else float("nan")


def setup_business(node, work):
    """A business with an APNs credential; returns (business id, the .p8 key's path)."""
    business = node.admin("POST", "/api/admin/businesses", {"name": "Scale Co"})["id"]
    key = hb.p8_key(work)
    node.admin("PUT", f"/api/admin/businesses/{business}/apns", {
        "key_p8": key, "key_id": "SCALE12345", "team_id": "TEAM123456", "topic": TOPIC,
        "environment": "production"})
    return business, os.path.join(work, "AuthKey.p8")


def queue_pushes(pg, business, count, first=1):
    """`count` users with an iPhone each and one queued news entry each, written in one transaction (what a
    fan-out leaves behind), with a fresh apns-id per push."""
    last = first + count - 1
    pg.psql(f"""
        BEGIN;
        INSERT INTO users (id, business_id, email, password_hash, first_name, last_name, created_at, updated_at)
          SELECT i, {business}, 'u' || i || '@example.com', 'x', 'Scale', 'User', 0, 0
          FROM generate_series({first}, {last}) i;
        INSERT INTO devices (id, business_id, user_id, device_key, platform, token, token_updated_at, created_at,
                             updated_at)
          SELECT i, {business}, i, 'd' || i, 'apns', lpad(to_hex(i), 64, '0'), 0, 0, 0
          FROM generate_series({first}, {last}) i;
        INSERT INTO notifications (id, business_id, user_id, kind, event, title, subtitle, body, sound, extras,
                                   push_style, visible, created_at)
          SELECT i, {business}, i, 'news', 'news', 'Flash sale', 'Today only', 'Everything is half price until 6pm!',
                 'default', '{{"u":' || i || '}}', 'alert', 1, 0
          FROM generate_series({first}, {last}) i;
        INSERT INTO deliveries (notification_id, business_id, device_id, platform, status, attempts, next_attempt_at,
                                apns_id, created_at, updated_at)
          SELECT i, {business}, i, 'apns', 'queued', 0, 0, gen_random_uuid()::text, 0, 0
          FROM generate_series({first}, {last}) i;
        INSERT INTO delivery_due (id, due_at, business_id, platform)
          SELECT id, next_attempt_at, business_id, platform FROM deliveries WHERE notification_id >= {first};
        COMMIT;
        ANALYZE;
        """)
    # Identity columns: ids written by hand leave the sequences behind.
    for table in ("users", "devices", "notifications"):
        pg.psql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")


def requeue(pg):
    """Makes every push queued and due again, as a fan-out leaves them (the queue's due table written too)."""
    pg.psql("BEGIN; UPDATE deliveries SET status = 'queued', attempts = 0, next_attempt_at = 0, "
            "lease_owner = NULL, lease_until = NULL, provider_message_id = NULL, updated_at = 0; "
            "DELETE FROM delivery_claims; DELETE FROM delivery_due; "
            "INSERT INTO delivery_due (id, due_at, business_id, platform) "
            "SELECT id, next_attempt_at, business_id, platform FROM deliveries ORDER BY id; COMMIT")


def machine_cpu():
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)
