"""What may run beside `herald serve` on SQLite loses the server nothing, and what may not is refused.

docs/operations.md says the `herald admin` commands, `herald backup` and a read-only SQLite reader may run beside a
server on the same data directory, and that `herald restore` and a second `herald serve` may not. This runs the
`herald` just built (the debug build in .build, else the release one) as an operator would:

- start, stop and start again on one data directory (the lock SQLite keeps on `herald.db` must survive a start on an
  existing database, not only a first one);
- beside it: every documented `herald admin` command, `herald backup`, Python's SQLite module and the `sqlite3`
  shell reading the database; then writes through the API;
- SIGKILL (or, in the second test, SIGTERM) and a start: every write is there, and the server never wrote into a
  WAL file another process had deleted (`/proc/PID/fd` shows no `herald.db-wal (deleted)`);
- a second `herald serve` and `herald restore` on the live data directory are refused, saying why.

Run from the repository root after `swift build`: python3 -m unittest Tests/Durability/test_durability.py
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from browser_support import herald_binary  # noqa: E402

ADMIN_TOKEN = "hadm_durability_test_token"
ENV = dict(os.environ, HERALD_ADMIN_TOKEN=ADMIN_TOKEN, HERALD_LOG_LEVEL="warning")


def openssl(*arguments, data=None):
    return subprocess.run(["openssl", *arguments], input=data, check=True, capture_output=True).stdout


class Server:
    """`herald serve` on a free port of 127.0.0.1, on `data_dir`."""

    def __init__(self, data_dir):
        self.process = subprocess.Popen(
            [herald_binary(), "serve", "--port", "0", "--data-dir", data_dir],
            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "listening on " not in line:
            self.process.kill()
            raise AssertionError("herald did not start: " + line + self.process.stderr.read())
        self.base = line.strip().split("listening on ", 1)[1]

    def call(self, method, path, body=None):
        request = urllib.request.Request(
            self.base + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + ADMIN_TOKEN, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def deleted_files(self):
        """The files this server still writes into that another process has unlinked."""
        directory = f"/proc/{self.process.pid}/fd"
        targets = []
        for fd in os.listdir(directory):
            try:
                targets.append(os.readlink(os.path.join(directory, fd)))
            except FileNotFoundError:
                pass
        return [target for target in targets if target.endswith(" (deleted)") and "herald.db" in target]

    def stop(self, how):
        self.process.send_signal(how)
        self.process.wait(30)
        self.process.stdout.close()
        self.process.stderr.close()
        if how == signal.SIGTERM:
            assert self.process.returncode == 0, f"a graceful stop exited {self.process.returncode}"


class DurabilityTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="herald-durability-")
        self.data = os.path.join(self.directory, "data")
        self.database = os.path.join(self.data, "herald.db")
        self.p8 = os.path.join(self.directory, "AuthKey_ABC123DEFG.p8")
        with open(self.p8, "wb") as f:
            f.write(openssl("pkcs8", "-topk8", "-nocrypt",
                            data=openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout")))
        self.account = os.path.join(self.directory, "service-account.json")
        with open(self.account, "w") as f:
            json.dump({"type": "service_account", "project_id": "durability-test", "private_key_id": "0123456789abcdef",
                       "private_key": openssl("genpkey", "-algorithm", "RSA", "-pkeyopt",
                                              "rsa_keygen_bits:2048").decode(),
                       "client_email": "herald@durability-test.iam.gserviceaccount.com",
                       "token_uri": "https://oauth2.googleapis.com/token"}, f)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
        subprocess.run(["rm", "-rf", self.directory])

    def serve(self):
        server = Server(self.data)
        self.servers.append(server)
        return server

    def herald(self, *arguments):
        """A `herald` command on the server's data directory: (exit status, standard output, standard error)."""
        done = subprocess.run([herald_binary(), *arguments, "--data-dir", self.data], env=ENV, capture_output=True,
                              text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr

    def business(self, server, name):
        status, answer = server.call("POST", "/api/admin/businesses", {"name": name})
        self.assertEqual(status, 201, answer)
        return answer["id"]

    def names(self, server):
        status, answer = server.call("GET", "/api/admin/businesses?limit=500")
        self.assertEqual(status, 200, answer)
        rows = answer["data"] if isinstance(answer, dict) else answer
        return sorted(row["name"] for row in rows)

    def run_beside(self, server):
        """Everything docs/operations.md lets run beside a server, each checked to have done its work."""
        # Every write the server has made so far is what another process reads.
        status, out, err = self.herald("admin", "businesses")
        self.assertEqual(status, 0, err)
        for name in self.names(server):
            self.assertIn(f'"{name}"', out)
        status, out, err = self.herald("admin", "create-business", "--name", "from the command line")
        self.assertEqual(status, 0, err)
        business = json.loads(out)["id"]
        status, out, err = self.herald("admin", "set-apns", "--business", str(business), "--p8", self.p8,
                                       "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ",
                                       "--topic", "com.example.burger", "--environment", "sandbox")
        self.assertEqual(status, 0, err)
        status, out, err = self.herald("admin", "set-fcm", "--business", str(business),
                                       "--service-account", self.account)
        self.assertEqual(status, 0, err)
        backup = os.path.join(self.directory, f"backup-{len(os.listdir(self.directory))}.db")
        status, out, err = self.herald("backup", "--to", backup)
        self.assertEqual(status, 0, err)
        with sqlite3.connect(f"file:{backup}?mode=ro", uri=True) as copy:
            self.assertIn("before", [row[0] for row in copy.execute("SELECT name FROM businesses")])
        # Python's SQLite module, read-only, and the sqlite3 shell, as an operator looking would.
        reader = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
        self.assertIn("before", [row[0] for row in reader.execute("SELECT name FROM businesses")])
        reader.close()
        shell = subprocess.run(["sqlite3", "-readonly", self.database, "SELECT count(*) FROM businesses"],
                               capture_output=True, text=True, check=True)
        self.assertGreaterEqual(int(shell.stdout), 2)
        shell = subprocess.run(["sqlite3", self.database, "SELECT name FROM businesses"],
                               capture_output=True, text=True, check=True)
        self.assertIn("from the command line", shell.stdout)
        self.assertEqual(server.deleted_files(), [])

    def refuses_what_may_not_run_beside(self):
        second = subprocess.run([herald_binary(), "serve", "--port", "0", "--data-dir", self.data], env=ENV,
                                capture_output=True, text=True, timeout=30)
        self.assertNotEqual(second.returncode, 0, second.stdout)
        self.assertIn("another herald serve", second.stderr)
        restore = subprocess.run([herald_binary(), "restore", "--from", self.database + ".missing", "--data-dir",
                                  self.data], env=ENV, capture_output=True, text=True, timeout=30)
        self.assertNotEqual(restore.returncode, 0)
        self.assertIn("another herald serve", restore.stderr)

    def check_writes_survive(self, how):
        first = self.serve()
        self.business(first, "first start")
        first.stop(signal.SIGTERM)
        server = self.serve()  # a start on an existing database
        self.business(server, "before")
        self.run_beside(server)
        self.refuses_what_may_not_run_beside()
        for index in range(20):
            self.business(server, f"after {index}")
        self.run_beside(server)
        self.assertEqual(server.deleted_files(), [])
        expected = self.names(server)
        self.assertEqual(len(expected), 24, expected)
        server.stop(how)
        again = self.serve()
        self.assertEqual(self.names(again), expected)
        # The ids go on from where they were: none handed out twice.
        self.assertEqual(self.business(again, "last"), 25)
        again.stop(signal.SIGTERM)

    def test_nothing_is_lost_across_a_kill(self):
        self.check_writes_survive(signal.SIGKILL)

    def test_nothing_is_lost_across_a_graceful_stop(self):
        self.check_writes_survive(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
