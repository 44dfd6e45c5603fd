#!/usr/bin/env python3
"""bench/abuse/durability: kill -9 under load, then check that every acknowledged write is there.

Eight processes sign users up as fast as they can (each sign-up is one transaction: user, device, welcome notice);
after a few seconds Herald is killed with SIGKILL, started again on the same data directory, and every email whose
sign-up was answered 200 is looked up in the database. Repeated for several rounds on one database.

    bench/abuse/durability [rounds, default 5] [seconds before the kill, default 4]

Prints the acknowledged writes per round and how many are missing after the restart (must be 0).
"""
import hashlib
import hmac
import http.client
import json
import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
import herald_bench as hb  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 4


def sign(secret, target, body=b""):
    return hmac.new(secret.encode(), target.encode() + body, hashlib.sha256).hexdigest()


def sign_up_loop(port, business, prefix, acknowledged):
    connection = None
    index = 0
    while True:
        email = f"{prefix}-{index}@example.com"
        index += 1
        body = json.dumps({"client": business["client"], "user": {
            "email": email, "password": "password123", "password_confirmation": "password123",
            "first_name": "D", "last_name": "K"}}).encode()
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("POST", "/api2/mobile/users", body=body, headers={
                "x-pch-digest": sign(business["secret"], "/api2/mobile/users", body),
                "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status == 200:
                acknowledged.append(email)
        except (OSError, http.client.HTTPException):
            return  # the server is gone


def main():
    binary = hb.build_release()
    work = tempfile.mkdtemp(prefix="herald-durability-")
    data = os.path.join(work, "data")
    env = {"HERALD_AUTH_RATE_PER_ADDRESS": "0", "HERALD_AUTH_FAILURES_PER_ACCOUNT": "0", "HERALD_PASSWORD_COST": "1024",
           "HERALD_PASSWORD_THREADS": "8"}
    business = None
    total = missing_total = 0
    for round_number in range(ROUNDS):
        herald = hb.Herald(binary, data, env)
        if business is None:
            business = herald.admin("POST", "/api/admin/businesses", {"name": "Durable Co"})
        manager = multiprocessing.Manager()
        acknowledged = manager.list()
        workers = [multiprocessing.Process(target=sign_up_loop,
                                           args=(herald.port, business, f"r{round_number}w{i}", acknowledged))
                   for i in range(8)]
        for worker in workers:
            worker.start()
        time.sleep(SECONDS)
        herald.process.send_signal(signal.SIGKILL)
        herald.process.wait()
        for worker in workers:
            worker.join(timeout=10)
        emails = list(acknowledged)
        # Restarting runs recovery (the WAL is replayed on open); then the database is read directly.
        herald = hb.Herald(binary, data, env)
        herald.stop()
        database = sqlite3.connect(os.path.join(data, "herald.db"))
        present = {row[0] for row in database.execute("SELECT email FROM users")}
        database.close()
        missing = [e for e in emails if e not in present]
        total += len(emails)
        missing_total += len(missing)
        print(f"round {round_number + 1}: {len(emails)} acknowledged sign-ups, {len(missing)} missing after kill -9",
              flush=True)
    print(f"total: {total} acknowledged, {missing_total} missing")
    sys.exit(1 if missing_total else 0)


if __name__ == "__main__":
    main()
