"""Shared helpers for Herald's benchmarks: a throwaway CA, starting `herald serve`, admin calls."""
import atexit
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FCM_PROJECT = "bench-app"  # the benchmarks' Firebase project: their service account's, and the sink's answers'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_cpu_seconds(pid):
    """User plus system CPU time of a process so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """User plus system CPU time of this process's finished children so far (h2load's, once it has exited)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_release():
    """Builds herald in release mode (the figures are meaningless in debug), or returns HERALD_BINARY when set
    (to compare two builds, or to measure one without the build step taking the machine)."""
    if os.environ.get("HERALD_BINARY"):
        return os.path.abspath(os.environ["HERALD_BINARY"])
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


def nghttpd_command(port, key, cert, extra=()):
    """nghttpd --echo-upload writes every request body to a file of its own under /tmp (a fixed path) and deletes
    it: on an ext4 /tmp that has seen millions of such files, inode allocation alone made nghttpd 4-6 times
    slower (perf: find_get_block_common, recently_deleted), and both Herald and h2load with it. When allowed,
    it gets a private tmpfs /tmp instead (its key and certificate are copied to /dev/shm, outside that /tmp)."""
    args = ["nghttpd", "--echo-upload", "-n", "1", "--max-concurrent-streams=1000", *extra, str(port)]
    if os.geteuid() != 0 or not shutil.which("unshare") or not os.path.isdir("/dev/shm"):
        print("note: nghttpd keeps its upload files on the real /tmp (needs root and unshare for a tmpfs)")
        return args + [key, cert]
    private = tempfile.mkdtemp(prefix="herald-bench-tls-", dir="/dev/shm")
    atexit.register(shutil.rmtree, private, True)
    shutil.copy(key, private)
    shutil.copy(cert, private)
    files = [os.path.join(private, os.path.basename(key)), os.path.join(private, os.path.basename(cert))]
    return ["unshare", "--mount", "sh", "-c", 'mount -t tmpfs -o size=256m herald-bench /tmp && exec "$@"', "sh"] \
        + args + files


def nginx_sink(directory, port, cert, key, cores=None):
    """A next-door provider stand-in on Debian's nginx (HTTP/2 + TLS, one worker process, 1,000 streams a connection,
    no request limit a connection): APNs pushes (`/3/device/…`) answered 200 with the apns-id they carry, FCM sends
    (`/v1/projects/…`) with a message name as Google answers, `/token` with an OAuth access token (so
    `fcm_credential`'s service account works against it), each at once and with no log. The fastest of the sinks here:
    h2load drives it several times as fast as nghttpd --echo-upload, so the ratio to h2load asks most of the client.
    Returns the process (stop it with terminate()); its CPU is the process's own (no master process)."""
    config = os.path.join(directory, "nginx.conf")
    with open(config, "w") as f:
        f.write(f"""worker_processes 1;
master_process off;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  keepalive_requests 1000000000;
  keepalive_timeout 600s;
  http2_max_concurrent_streams 1000;
  client_body_buffer_size 16k;
  client_body_temp_path {directory}/nginx-body;
  proxy_temp_path {directory}/nginx-proxy;
  fastcgi_temp_path {directory}/nginx-fastcgi;
  uwsgi_temp_path {directory}/nginx-uwsgi;
  scgi_temp_path {directory}/nginx-scgi;
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    location = /token {{
      default_type application/json;
      return 200 '{{"access_token":"bench","expires_in":3600,"token_type":"Bearer"}}';
    }}
    location /v1/projects/ {{
      default_type application/json;
      return 200 '{{"name":"projects/{FCM_PROJECT}/messages/0:1"}}';
    }}
    location / {{
      add_header apns-id $http_apns_id always;
      return 200;
    }}
  }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", config, "-p", directory], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, preexec_fn=on_cores(cores))
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.terminate()
    raise RuntimeError("nginx did not start listening")


def haproxy_sink(directory, port, cert, key, delay_ms=0, slow_prefix=None, slow_ms=2000, cores=None, capacity=0,
                 quota_per_minute=0):
    """An APNs-shaped HTTP/2 + TLS server (Debian's haproxy, with Lua) answering every POST 200 with its apns-id
    (FCM's sends with the message's name, as Google answers; `/token` answers an OAuth access token, so an FCM
    service account whose `token_uri` is `https://127.0.0.1:<port>/token` works against it) after `delay_ms`, or after `slow_ms` for device tokens starting with `slow_prefix`; the waits run side by side,
    so it answers with a provider's latency and no queueing of its own. One thread, 1000 streams per connection;
    on `cores` when given (`split_cores`). Returns the process (stop it with terminate()).

    `capacity` > 0 plays a provider that sheds load: it holds that many requests at once (over every connection) and
    answers any beyond them at once with `503 {"reason":"ServiceUnavailable"}`, no Retry-After, as APNs does under
    load. `quota_per_minute` > 0 plays FCM's per-project quota: a bucket of a second's worth of sends refilled
    continuously; a send finding it empty is answered `429 RESOURCE_EXHAUSTED` (QUOTA_EXCEEDED) with a Retry-After of
    one second. Both count in the Lua state, which is one thread's: `/stats` answers what was refused,
    (`quota_refused_late`) the 429s answered more than a minute after the first FCM send, and under a quota the sends
    accepted and refused in each 10 s since the first (`accepted_by_10s`, `refused_by_10s`: lists, the first window
    first) and the seconds from the first send to the last accepted (`span`)."""
    combined = os.path.join(directory, "haproxy.pem")
    with open(combined, "w") as out, open(cert) as c, open(key) as k:
        out.write(c.read() + k.read())
    lua = os.path.join(directory, "delay.lua")
    with open(lua, "w") as f:
        f.write(f"""local prefix = {json.dumps(slow_prefix or "")}
local capacity = {int(capacity)}
local rate = {int(quota_per_minute)} / 60
local inflight, shed, quota_refused, quota_refused_late, tokens, filled = 0, 0, 0, 0, rate, core.now()
local first_send, last_send = nil, nil
-- FCM sends accepted and refused in each 10 s window since the first: [window + 1] = count
local accepted_by_window, refused_by_window = {{}}, {{}}
local function counts(list)
  local out, last = {{}}, 0
  for index, _ in pairs(list) do if index > last then last = index end end
  for index = 1, last do out[index] = tostring(list[index] or 0) end
  return "[" .. table.concat(out, ",") .. "]"
end
core.register_action("delay", {{ "http-req" }}, function(txn)
  local path = txn.sf:path()
  if path == "/stats" then
    txn:set_var("txn.stats", string.format(
      '{{"shed":%d,"quota_refused":%d,"quota_refused_late":%d,"accepted_by_10s":%s,"refused_by_10s":%s,"span":%.3f}}',
      shed, quota_refused, quota_refused_late, counts(accepted_by_window), counts(refused_by_window),
      last_send and ((last_send.sec - first_send.sec) + (last_send.usec - first_send.usec) / 1e6) or 0))
    return
  end
  if rate > 0 and string.find(path, "/v1/projects/", 1, true) then
    local now = core.now()
    if first_send == nil then first_send = now end
    local window = math.floor(((now.sec - first_send.sec) + (now.usec - first_send.usec) / 1e6) / 10) + 1
    local elapsed = (now.sec - filled.sec) + (now.usec - filled.usec) / 1e6
    tokens, filled = math.min(rate, tokens + elapsed * rate), now
    if tokens < 1 then
      quota_refused = quota_refused + 1
      refused_by_window[window] = (refused_by_window[window] or 0) + 1
      if now.sec - first_send.sec > 60 then quota_refused_late = quota_refused_late + 1 end
      txn:set_var("txn.quota", 1)
      return
    end
    tokens = tokens - 1
    accepted_by_window[window] = (accepted_by_window[window] or 0) + 1
    last_send = now
  end
  if capacity > 0 and inflight >= capacity then
    shed = shed + 1
    txn:set_var("txn.shed", 1)
    return
  end
  inflight = inflight + 1
  if prefix ~= "" and string.find(path, "/3/device/" .. prefix, 1, true) then core.msleep({int(slow_ms)})
  elseif {int(delay_ms)} > 0 then core.msleep({int(delay_ms)}) end
  inflight = inflight - 1
end)
""")
    config = os.path.join(directory, "haproxy.cfg")
    with open(config, "w") as f:
        f.write(f"""global
  lua-load {lua}
  tune.h2.max-concurrent-streams 1000
  maxconn 4000
  nbthread 1
defaults
  mode http
  timeout client 60s
  timeout connect 5s
  timeout server 60s
  timeout http-request 60s
frontend apns
  bind 127.0.0.1:{port} ssl crt {combined} alpn h2,http/1.1
  http-request wait-for-body time 5s
  http-request lua.delay
  http-request return status 200 content-type application/json lf-string "%[var(txn.stats)]" if {{ path /stats }}
  http-request return status 503 content-type application/json string '{{"reason":"ServiceUnavailable"}}' if {{ var(txn.shed) -m int 1 }}
  http-request return status 429 content-type application/json hdr retry-after 1 string '{{"error":{{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"QUOTA_EXCEEDED"}}]}}}}' if {{ var(txn.quota) -m int 1 }}
  http-request return status 200 content-type application/json string '{{"access_token":"bench","expires_in":3600,"token_type":"Bearer"}}' if {{ path /token }}
  http-request return status 200 content-type application/json string '{{"name":"projects/{FCM_PROJECT}/messages/0:1"}}' if {{ path_beg /v1/projects/ }}
  http-request return status 200 hdr apns-id "%[req.hdr(apns-id)]"
""")
    process = subprocess.Popen(["haproxy", "-db", "-f", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=on_cores(cores))
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.terminate()
    raise RuntimeError("haproxy did not start listening")


def p8_key(directory):
    """A P-256 key in Apple's .p8 form (PKCS#8 PEM)."""
    path = os.path.join(directory, "AuthKey.p8")
    gen = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], check=True, capture_output=True)
    subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-out", path], input=gen.stdout, check=True, capture_output=True)
    with open(path) as f:
        return f.read()


def rsa_key(directory):
    """An RSA key (PEM), as a Firebase service account's `private_key` holds it."""
    path = os.path.join(directory, "fcm.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path],
                   check=True, capture_output=True)
    with open(path) as f:
        return f.read()


def apns_credential(directory):
    """The body of `PUT /api/admin/businesses/{id}/apns` for a benchmark's business (a new .p8 key)."""
    return {"key_p8": p8_key(directory), "key_id": "BENCH12345", "team_id": "TEAM123456",
            "topic": "com.example.bench", "environment": "production"}


def fcm_credential(directory, port):
    """The body of `PUT /api/admin/businesses/{id}/fcm`: a service account (a new RSA key) whose OAuth tokens come
    from the sink on `port` (`haproxy_sink` answers `/token`)."""
    return {"service_account": {
        "type": "service_account", "project_id": FCM_PROJECT, "private_key_id": "0123456789abcdef",
        "private_key": rsa_key(directory), "client_email": f"herald@{FCM_PROJECT}.iam.gserviceaccount.com",
        "token_uri": f"https://127.0.0.1:{port}/token"}}


def split_cores():
    """(the provider stand-in's cores, the clients' cores) for a scenario whose stand-in plays a provider on other
    machines (APNs 40 ms away): the last core for it, the others for Herald and for h2load alike, so the client
    measured does not take its CPU from the server both are measured against. None with a single core, or when
    BENCH_SHARED_CORES=1 asks for every process on every core."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2 or os.environ.get("BENCH_SHARED_CORES") == "1":
        return None
    return {cores[-1]}, set(cores[:-1])


def on_cores(cores):
    """A `preexec_fn` keeping a child process on `cores`; None (no pinning) when `cores` is None."""
    return (lambda: os.sched_setaffinity(0, cores)) if cores else None


class Herald:
    """`herald serve` in a child process (on `cores` when given)."""

    def __init__(self, binary, data_dir, env=None, args=(), cores=None):
        self.env = dict(os.environ, HERALD_ADMIN_TOKEN="bench-admin-token", HERALD_LOG_LEVEL="warning",
                        HERALD_SECRET_KEY="00" * 32, **(env or {}))
        self.answers = []
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data_dir, *args],
                                        stdout=subprocess.PIPE, stderr=sys.stderr, env=self.env, text=True,
                                        preexec_fn=on_cores(cores))
        for line in self.process.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        else:
            raise RuntimeError("herald exited before listening")

    def admin(self, method, path, body=None):
        """An admin API call's answer, parsed; (method, path, status, content type, body) kept in `answers` (for
        Tests/Browser/openapi_check.py's `exchange`, when a caller checks them against docs/openapi.json)."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": "Bearer bench-admin-token", "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            data = response.read()
            self.answers.append((method, path, response.status, response.headers.get("Content-Type"), data))
            return json.loads(data or b"null")

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
        return process_cpu_seconds(self.process.pid)

    def peak_rss_mb(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        """SIGTERM, as an operator stops it. A stop that is not clean (exit status not 0, a crash, 30 s without
        exiting) fails the run: what it measured ended in a failure."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise RuntimeError("herald did not stop within 30 s of SIGTERM")
            if self.process.returncode != 0:
                raise RuntimeError(f"herald stopped with status {self.process.returncode} on SIGTERM (negative: the "
                                   f"signal that ended it)")


class Postgres:
    """A cluster started by scripts/postgres (fsync off: test data only), stopped and removed by stop()."""

    def __init__(self, options=""):
        out = subprocess.run([os.path.join(ROOT, "scripts", "postgres"), "start"], check=True, capture_output=True,
                             text=True, env=dict(os.environ, HERALD_POSTGRES_OPTIONS=options)).stdout
        values = dict(re.findall(r"export (\w+)='([^']*)'", out))
        self.url, self.dir = values["HERALD_TEST_POSTGRES_URL"], values["HERALD_TEST_POSTGRES_DIR"]

    def psql(self, sql, quiet=True):
        """Runs SQL; returns the rows as lists of strings (unaligned, tab-separated)."""
        out = subprocess.run(["psql", self.url, "-X", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", "\t", "-q", "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def scalar(self, sql):
        return int(self.psql(sql)[0][0])

    def backend_pids(self):
        """The server's processes (postmaster and every backend) — what PostgreSQL's CPU is summed over."""
        with open(os.path.join(self.dir, "data", "postmaster.pid")) as f:
            postmaster = int(f.readline())
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster] + [int(p) for p in children]

    def cpu_seconds(self):
        """CPU the server has used so far: its live processes', and what its ended backends left to the
        postmaster (their CPU is added to its children's times as each exits)."""
        pids = self.backend_pids()
        with open(f"/proc/{pids[0]}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ended = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        return ended + sum(process_cpu_seconds(pid) for pid in pids)

    def stop(self):
        subprocess.run([os.path.join(ROOT, "scripts", "postgres"), "stop", self.dir], check=False)


def require(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        sys.exit(f"missing tools: {', '.join(missing)} (apt-get install -y nghttp2-server nghttp2-client wrk)")
