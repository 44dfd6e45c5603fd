"""Shared helpers for Herald's benchmarks: a throwaway CA, starting `herald serve`, admin calls."""
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_release():
    """Builds herald in release mode (the figures are meaningless in debug)."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "herald"], cwd=ROOT, check=True)
    return os.path.join(ROOT, ".build", "release", "herald")


def make_tls(directory):
    """A CA and a server certificate for 127.0.0.1 signed by it; returns (ca, cert, key) paths."""
    ca_key, ca, key, csr, cert = (os.path.join(directory, n) for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    run = lambda *args: subprocess.run(args, check=True, capture_output=True)
    run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ca_key)
    run("openssl", "req", "-x509", "-new", "-key", ca_key, "-days", "2", "-subj", "/CN=Herald bench CA", "-out", ca)
    run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key)
    run("openssl", "req", "-new", "-key", key, "-subj", "/CN=127.0.0.1", "-out", csr)
    ext = os.path.join(directory, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", cert)
    return ca, cert, key


def p8_key(directory):
    """A P-256 key in Apple's .p8 form (PKCS#8 PEM)."""
    path = os.path.join(directory, "AuthKey.p8")
    gen = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], check=True, capture_output=True)
    pk8 = subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-out", path], input=gen.stdout, check=True, capture_output=True)
    with open(path) as f:
        return f.read()


class Herald:
    """`herald serve` in a child process."""

    def __init__(self, binary, data_dir, env=None, args=()):
        self.env = dict(os.environ, HERALD_ADMIN_TOKEN="bench-admin-token", HERALD_LOG_LEVEL="warning",
                        HERALD_SECRET_KEY="00" * 32, **(env or {}))
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data_dir, *args],
                                        stdout=subprocess.PIPE, stderr=sys.stderr, env=self.env, text=True)
        for line in self.process.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        else:
            raise RuntimeError("herald exited before listening")

    def admin(self, method, path, body=None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": "Bearer bench-admin-token", "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read() or b"null")

    def metrics(self):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/metrics",
                                         headers={"Authorization": "Bearer bench-admin-token"})
        with urllib.request.urlopen(request) as response:
            return response.read().decode()

    def upload_jpeg(self, business_id, size):
        """Uploads a JPEG of `size` bytes through the admin API; returns its /media/ path."""
        head = bytes.fromhex("ffd8ffe000104a46494600010100000100010000")  # JPEG magic and a JFIF header
        body = head + os.urandom(size - len(head) - 2) + b"\xff\xd9"
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/admin/businesses/{business_id}/media", data=body, method="POST",
            headers={"Authorization": "Bearer bench-admin-token", "Content-Type": "image/jpeg"})
        with urllib.request.urlopen(request) as response:
            uploaded = json.loads(response.read())
        assert uploaded["sha256"] == hashlib.sha256(body).hexdigest(), uploaded
        return body, "/media/" + uploaded["url"].rsplit("/", 1)[1]

    def cpu_seconds(self):
        """User plus system CPU time the server has used so far."""
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def require(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        sys.exit(f"missing tools: {', '.join(missing)} (apt-get install -y nghttp2-server nghttp2-client wrk)")
