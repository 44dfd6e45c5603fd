"""End-to-end tests of the APNs / FCM stand-ins (standin.py).

Run from the worktree root:  python3 -m unittest Tests/StandIns/test_standin.py
Each test class starts the stand-in as a subprocess and talks to it over real
HTTP/2 + TLS (the h2 library as a client, verifying the throwaway CA), plain
HTTP/1.1 for the control port, and curl where it is installed.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid
from urllib.parse import urlencode, urlsplit

import h2.config
import h2.connection
import h2.events
import h2.settings
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "standin.py")

TEAM = "TEAM123456"
KID = "KEY1234567"
TOPIC = "com.example.herald"
DEVICE = "a" * 64
DEVICE2 = "b" * 64
PROJECT = "herald-test"
EMAIL = "herald@herald-test.iam.gserviceaccount.com"
PKID = "0123456789abcdef"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def es256_jwt(key: ec.EllipticCurvePrivateKey, kid: str, iss: str, iat: int) -> str:
    header = b64url(json.dumps({"alg": "ES256", "kid": kid}).encode())
    claims = b64url(json.dumps({"iss": iss, "iat": iat}).encode())
    signing_input = f"{header}.{claims}".encode()
    r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return f"{header}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def rs256_jwt(key: rsa.RSAPrivateKey, claims: dict, kid: str | None = PKID) -> str:
    head = {"alg": "RS256", "typ": "JWT"}
    if kid:
        head["kid"] = kid
    signing_input = f"{b64url(json.dumps(head).encode())}.{b64url(json.dumps(claims).encode())}".encode()
    sig = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input.decode()}.{b64url(sig)}"


def public_pem(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class H2Response:
    def __init__(self):
        self.status = None
        self.headers = {}
        self.body = b""
        self.reset = None     # RST_STREAM error code, if the server reset the stream
        self.done = False

    def json(self):
        return json.loads(self.body)


class H2Client:
    """Small synchronous HTTP/2 client over TLS, multiplexing many requests per connection."""

    def __init__(self, url: str, cafile: str, alpn=("h2",)):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        ctx = ssl.create_default_context(cafile=cafile)
        ctx.set_alpn_protocols(list(alpn))
        raw = socket.create_connection((self.host, self.port), timeout=10)
        self.sock = ctx.wrap_socket(raw, server_hostname=self.host)
        self.alpn = self.sock.selected_alpn_protocol()
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window(1 << 24)
        self.sock.sendall(self.conn.data_to_send())
        self.goaway = None
        self.closed = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _pump(self, responses: dict, until):
        while not until():
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise AssertionError("timed out waiting for the stand-in") from None
            if not data:
                self.closed = True
                return
            for event in self.conn.receive_data(data):
                resp = responses.get(getattr(event, "stream_id", None))
                if isinstance(event, h2.events.ResponseReceived) and resp is not None:
                    resp.headers = dict(event.headers)
                    resp.status = int(resp.headers[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    if resp is not None:
                        resp.body += event.data
                elif isinstance(event, h2.events.StreamEnded) and resp is not None:
                    resp.done = True
                elif isinstance(event, h2.events.StreamReset) and resp is not None:
                    resp.reset = event.error_code
                    resp.done = True
                elif isinstance(event, h2.events.ConnectionTerminated):
                    self.goaway = event
            out = self.conn.data_to_send()
            if out:
                self.sock.sendall(out)

    def start(self, method: str, path: str, headers=(), body: bytes = b""):
        stream_id = self.conn.get_next_available_stream_id()
        hdrs = [(":method", method), (":scheme", "https"), (":authority", f"{self.host}:{self.port}"),
                (":path", path)] + list(headers)
        self.conn.send_headers(stream_id, hdrs, end_stream=not body)
        if body:
            self.conn.send_data(stream_id, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        return stream_id

    def many(self, requests):
        """requests: iterable of (method, path, headers, body); all sent before any answer is read."""
        responses = {}
        order = []
        for method, path, headers, body in requests:
            sid = self.start(method, path, headers, body)
            responses[sid] = H2Response()
            order.append(sid)
        self._pump(responses, lambda: self.closed or all(r.done for r in responses.values()))
        return [responses[s] for s in order]

    def request(self, method: str, path: str, headers=(), body: bytes = b"") -> H2Response:
        return self.many([(method, path, headers, body)])[0]


class Standin:
    """The stand-in as a subprocess, plus a control-port client."""

    def __init__(self):
        self.workdir = tempfile.mkdtemp(prefix="standin-test-")
        self.proc = subprocess.Popen([sys.executable, STANDIN, "--workdir", self.workdir],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self._readline(20)
        self.startup_line = line
        self.info = json.loads(line)
        self.ca = self.info["ca_file"]
        ctl = urlsplit(self.info["control_url"])
        self.ctl_host, self.ctl_port = ctl.hostname, ctl.port

    def _readline(self, timeout):
        result = {}

        def read():
            result["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        line = result.get("line")
        if not line:
            err = b""
            if self.proc.poll() is not None:
                err = self.proc.stderr.read()
            raise RuntimeError(f"stand-in did not start: {err.decode(errors='replace')}")
        return line.decode()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.workdir, ignore_errors=True)

    def control(self, method: str, path: str, body=None):
        conn = http.client.HTTPConnection(self.ctl_host, self.ctl_port, timeout=10)
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
            resp = conn.getresponse()
            payload = json.loads(resp.read() or b"null")
            if resp.status != 200:
                raise AssertionError(f"control {method} {path} -> {resp.status} {payload}")
            return payload
        finally:
            conn.close()

    def apns(self, environment="production") -> H2Client:
        return H2Client(self.info["apns_sandbox_url" if environment == "sandbox" else "apns_url"], self.ca)

    def fcm(self, alpn=("h2",)) -> H2Client:
        return H2Client(self.info["fcm_url"], self.ca, alpn)


class StandinTestCase(unittest.TestCase):
    """One stand-in per test class; /reset before every test."""

    standin: Standin

    @classmethod
    def setUpClass(cls):
        cls.standin = Standin()
        cls.apns_key = ec.generate_private_key(ec.SECP256R1())
        cls.other_key = ec.generate_private_key(ec.SECP256R1())
        cls.sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cls.standin.control("POST", "/apns/keys", {"key_id": KID, "team_id": TEAM, "topic": TOPIC,
                                                    "public_key_pem": public_pem(cls.apns_key)})
        cls.standin.control("POST", "/fcm/accounts", {"client_email": EMAIL, "project_id": PROJECT,
                                                       "private_key_id": PKID,
                                                       "public_key_pem": public_pem(cls.sa_key)})
        cls.jwt = es256_jwt(cls.apns_key, KID, TEAM, int(time.time()))

    @classmethod
    def tearDownClass(cls):
        cls.standin.stop()

    def setUp(self):
        self.standin.control("POST", "/reset")
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def apns_client(self, environment="production") -> H2Client:
        c = self.standin.apns(environment)
        self.clients.append(c)
        return c

    def fcm_client(self, alpn=("h2",)) -> H2Client:
        c = self.standin.fcm(alpn)
        self.clients.append(c)
        return c

    # APNs request helpers ---------------------------------------------------

    def apns_headers(self, jwt=None, **overrides):
        hdrs = {"authorization": f"bearer {jwt or self.jwt}", "apns-topic": TOPIC, "apns-push-type": "alert",
                "apns-priority": "10"}
        for k, v in overrides.items():
            k = k.replace("_", "-")
            if v is None:
                hdrs.pop(k, None)
            else:
                hdrs[k] = v
        return list(hdrs.items())

    def apns_req(self, token=DEVICE, payload=None, jwt=None, **overrides):
        body = json.dumps(payload if payload is not None else {"aps": {"alert": "hi"}}).encode()
        return ("POST", f"/3/device/{token}", self.apns_headers(jwt, **overrides), body)

    def send_apns(self, client=None, **kw) -> H2Response:
        client = client or self.apns_client()
        return client.many([self.apns_req(**kw)])[0]

    # FCM helpers -------------------------------------------------------------

    def assertion(self, **overrides):
        now = int(time.time())
        claims = {"iss": EMAIL, "scope": FCM_SCOPE, "aud": self.standin.info["token_uri"], "iat": now,
                  "exp": now + 3600}
        claims.update(overrides)
        return rs256_jwt(self.sa_key, claims)

    def fetch_token(self, client=None, assertion=None) -> H2Response:
        client = client or self.fcm_client()
        form = urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                          "assertion": assertion or self.assertion()}).encode()
        return client.request("POST", "/token", [("content-type", "application/x-www-form-urlencoded")], form)

    def access_token(self) -> str:
        resp = self.fetch_token()
        self.assertEqual(resp.status, 200, resp.body)
        return resp.json()["access_token"]

    def fcm_send(self, client, token: str, message: dict, project=PROJECT) -> H2Response:
        return client.request("POST", f"/v1/projects/{project}/messages:send",
                              [("authorization", f"Bearer {token}"), ("content-type", "application/json")],
                              json.dumps({"message": message}).encode())


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

class StartupAndControlTests(StandinTestCase):
    def test_startup_line(self):
        info = self.standin.info
        self.assertEqual(list(info), ["apns_url", "apns_sandbox_url", "fcm_url", "token_uri", "ca_file", "control_url"])
        self.assertTrue(self.standin.startup_line.endswith("\n"))
        self.assertEqual(self.standin.startup_line.count("\n"), 1)
        self.assertTrue(info["apns_url"].startswith("https://127.0.0.1:"))
        self.assertTrue(info["apns_sandbox_url"].startswith("https://127.0.0.1:"))
        self.assertNotEqual(info["apns_url"], info["apns_sandbox_url"])
        self.assertEqual(info["token_uri"], info["fcm_url"] + "/token")
        self.assertTrue(info["control_url"].startswith("http://127.0.0.1:"))
        self.assertTrue(os.path.isfile(info["ca_file"]))
        self.assertEqual(os.path.dirname(info["ca_file"]), self.standin.workdir)

    def test_tls_alpn(self):
        # The client verifies the chain against ca.pem and the IP SAN 127.0.0.1.
        self.assertEqual(self.apns_client().alpn, "h2")
        self.assertEqual(self.fcm_client().alpn, "h2")
        self.assertEqual(self.fcm_client(alpn=("http/1.1",)).alpn, "http/1.1")
        # The APNs port speaks h2 only: an HTTP/1.1-only client gets no ALPN and no answer.
        ctx = ssl.create_default_context(cafile=self.standin.ca)
        ctx.set_alpn_protocols(["http/1.1"])
        parts = urlsplit(self.standin.info["apns_url"])
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname=parts.hostname) as s:
                self.assertIsNone(s.selected_alpn_protocol())
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                self.assertEqual(s.recv(100), b"")

    def test_localhost_name_verifies(self):
        ctx = ssl.create_default_context(cafile=self.standin.ca)
        port = urlsplit(self.standin.info["apns_url"]).port
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                self.assertIsNotNone(s.version())

    def test_control_endpoints(self):
        s = self.standin
        self.assertEqual(s.control("GET", "/health"), {"ok": True})
        keys = s.control("GET", "/apns/keys")
        self.assertEqual(keys, [{"key_id": KID, "team_id": TEAM, "topics": [TOPIC]}])
        self.assertEqual(s.control("GET", "/fcm/accounts")[0]["project_id"], PROJECT)
        rule = s.control("POST", "/apns/rules", {"token": DEVICE2, "status": 410, "reason": "Unregistered"})
        self.assertEqual(rule["kind"], "fail")
        self.assertEqual(len(s.control("GET", "/apns/rules")), 1)
        s.control("DELETE", "/apns/rules")
        self.assertEqual(s.control("GET", "/apns/rules"), [])
        cfg = s.control("POST", "/apns/config", {"token_update_limit": False})
        self.assertFalse(cfg["token_update_limit"])
        self.assertEqual(s.control("POST", "/fcm/config", {"token_expires_in": 5})["token_expires_in"], 5)
        clock = s.control("POST", "/clock", {"offset_seconds": 10})
        self.assertAlmostEqual(clock["now"], time.time() + 10, delta=5)
        c = self.apns_client()
        for _ in range(3):
            self.assertEqual(self.send_apns(c).status, 200)
        all_reqs = s.control("GET", "/apns/requests")
        self.assertEqual([r["index"] for r in all_reqs], [0, 1, 2])
        self.assertEqual([r["index"] for r in s.control("GET", "/apns/requests?since=2")], [2])
        self.assertEqual(len(s.control("GET", f"/apns/requests?token={DEVICE}")), 3)
        stats = s.control("GET", "/stats")
        self.assertEqual(stats["apns"]["requests"], 3)
        self.assertEqual(stats["apns"]["accepted"], 3)
        self.assertGreaterEqual(stats["apns"]["connections"], 1)
        # reset clears records, rules, stats, config and clock, keeps keys.
        s.control("POST", "/reset")
        self.assertEqual(s.control("GET", "/apns/requests"), [])
        self.assertEqual(s.control("GET", "/stats")["apns"]["requests"], 0)
        self.assertTrue(s.control("GET", "/apns/config")["token_update_limit"])
        self.assertEqual(s.control("GET", "/clock")["offset_seconds"], 0)
        self.assertEqual(len(s.control("GET", "/apns/keys")), 1)
        # bad control input -> 400
        with self.assertRaises(AssertionError):
            s.control("POST", "/apns/rules", {"bogus": 1})
        with self.assertRaises(AssertionError):
            s.control("POST", "/fcm/rules", {"error": "NOPE"})


class ApnsAuthTests(StandinTestCase):
    def test_valid_es256_accepted_and_recorded(self):
        apns_id = str(uuid.uuid4())
        resp = self.send_apns(apns_id=apns_id, payload={"aps": {"alert": {"title": "t", "body": "b"}}, "k": 1})
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.body, b"")
        self.assertEqual(resp.headers["apns-id"], apns_id)
        rec = self.standin.control("GET", "/apns/requests")[0]
        self.assertEqual(rec["token"], DEVICE)
        self.assertEqual(rec["kid"], KID)
        self.assertEqual(rec["iss"], TEAM)
        self.assertIsInstance(rec["iat"], int)
        self.assertEqual(rec["payload"]["k"], 1)
        self.assertEqual(rec["headers"]["apns-topic"], TOPIC)
        self.assertEqual(rec["status"], 200)
        self.assertEqual(rec["apns_id"], apns_id)
        self.assertEqual(rec["stream_id"], 1)
        self.assertIsInstance(rec["connection_id"], int)

    def test_apns_id_generated_when_absent(self):
        resp = self.send_apns()
        self.assertEqual(resp.status, 200)
        self.assertEqual(str(uuid.UUID(resp.headers["apns-id"])), resp.headers["apns-id"])

    def test_uppercase_apns_id_accepted(self):
        apns_id = str(uuid.uuid4()).upper()
        resp = self.send_apns(apns_id=apns_id)
        self.assertEqual(resp.status, 200)

    def test_bad_signature(self):
        bad = es256_jwt(self.other_key, KID, TEAM, int(time.time()))
        resp = self.send_apns(jwt=bad)
        self.assertEqual((resp.status, resp.json()["reason"]), (403, "InvalidProviderToken"))
        self.assertIn("apns-id", resp.headers)

    def test_missing_and_malformed_tokens(self):
        c = self.apns_client()
        r1, r2, r3, r4 = c.many([
            self.apns_req(authorization=None),
            self.apns_req(jwt="not-a-jwt"),
            self.apns_req(jwt=es256_jwt(self.apns_key, "UNKNOWNKID", TEAM, int(time.time()))),
            self.apns_req(jwt=es256_jwt(self.apns_key, KID, "OTHERTEAM", int(time.time()))),
        ])
        self.assertEqual((r1.status, r1.json()["reason"]), (403, "MissingProviderToken"))
        for r in (r2, r3, r4):
            self.assertEqual((r.status, r.json()["reason"]), (403, "InvalidProviderToken"))

    def test_expired_token_and_clock_offset(self):
        old = es256_jwt(self.apns_key, KID, TEAM, int(time.time()) - 3700)
        resp = self.send_apns(jwt=old)
        self.assertEqual((resp.status, resp.json()["reason"]), (403, "ExpiredProviderToken"))
        # A fresh token ages when the stand-in's clock moves on.
        self.assertEqual(self.send_apns().status, 200)
        self.standin.control("POST", "/clock", {"offset_seconds": 3601})
        resp = self.send_apns()
        self.assertEqual((resp.status, resp.json()["reason"]), (403, "ExpiredProviderToken"))

    def test_too_many_provider_token_updates(self):
        c = self.apns_client()
        now = int(time.time())
        self.assertEqual(self.send_apns(c).status, 200)
        newer = es256_jwt(self.apns_key, KID, TEAM, now - 1)
        resp = self.send_apns(c, jwt=newer)
        self.assertEqual((resp.status, resp.json()["reason"]), (429, "TooManyProviderTokenUpdates"))
        self.assertEqual(self.send_apns(c).status, 200)   # the adopted token still works
        # 20 minutes later (stand-in clock) the new token is accepted.
        self.standin.control("POST", "/clock", {"offset_seconds": 1201})
        self.assertEqual(self.send_apns(c, jwt=newer).status, 200)
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["distinct_jwts"], {KID: 2})
        self.assertEqual(stats["token_updates_rejected"], 1)

    def test_token_update_limit_toggle(self):
        self.standin.control("POST", "/apns/config", {"token_update_limit": False})
        c = self.apns_client()
        for i in range(3):
            jwt = es256_jwt(self.apns_key, KID, TEAM, int(time.time()) - i)
            self.assertEqual(self.send_apns(c, jwt=jwt).status, 200)
        self.assertEqual(self.standin.control("GET", "/stats")["apns"]["distinct_jwts"], {KID: 3})

    def test_other_key_on_same_connection(self):
        other_kid = "KEY7654321"
        self.standin.control("POST", "/apns/keys", {"key_id": other_kid, "team_id": TEAM, "topic": TOPIC,
                                                     "public_key_pem": public_pem(self.other_key)})
        c = self.apns_client()
        self.assertEqual(self.send_apns(c).status, 200)
        other = es256_jwt(self.other_key, other_kid, TEAM, int(time.time()))
        resp = self.send_apns(c, jwt=other)
        self.assertEqual((resp.status, resp.json()["reason"]), (403, "UnrelatedKeyIdInToken"))
        self.assertEqual(self.send_apns(jwt=other).status, 200)  # fine on its own connection

    def test_initial_single_stream_option(self):
        self.standin.control("POST", "/apns/config", {"initial_single_stream": True})
        c = self.apns_client()
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1)
        self.assertEqual(self.send_apns(c).status, 200)
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1000)
        resps = c.many([self.apns_req() for _ in range(20)])
        self.assertTrue(all(r.status == 200 for r in resps))

    def test_default_settings_advertise_1000_streams(self):
        c = self.apns_client()
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1000)
        resps = c.many([self.apns_req() for _ in range(300)])
        self.assertTrue(all(r.status == 200 for r in resps))
        self.assertGreater(self.standin.control("GET", "/stats")["apns"]["max_concurrent_streams_seen"], 1)


class ApnsValidationTests(StandinTestCase):
    def reason(self, resp):
        return resp.status, resp.json()["reason"]

    def test_missing_topic(self):
        self.assertEqual(self.reason(self.send_apns(apns_topic=None)), (400, "MissingTopic"))

    def test_topic_disallowed(self):
        self.assertEqual(self.reason(self.send_apns(apns_topic="com.other.app")), (400, "TopicDisallowed"))

    def test_push_type_topic_suffixes(self):
        c = self.apns_client()
        ok = c.many([
            self.apns_req(apns_push_type="voip", apns_topic=TOPIC + ".voip"),
            self.apns_req(apns_push_type="liveactivity", apns_topic=TOPIC + ".push-type.liveactivity"),
            self.apns_req(apns_push_type="complication", apns_topic=TOPIC + ".complication"),
        ])
        self.assertEqual([r.status for r in ok], [200, 200, 200])
        bad = self.send_apns(c, apns_push_type="voip")
        self.assertEqual(self.reason(bad), (400, "TopicDisallowed"))

    def test_push_type(self):
        self.assertEqual(self.reason(self.send_apns(apns_push_type=None)), (400, "InvalidPushType"))
        self.assertEqual(self.reason(self.send_apns(apns_push_type="banana")), (400, "InvalidPushType"))

    def test_priority(self):
        c = self.apns_client()
        r1, r2, r3, r4 = c.many([
            self.apns_req(apns_priority="7"),
            self.apns_req(apns_priority="1"),
            self.apns_req(apns_priority=None),
            self.apns_req(apns_push_type="background", apns_priority="10", payload={"aps": {"content-available": 1}}),
        ])
        self.assertEqual(self.reason(r1), (400, "BadPriority"))
        self.assertEqual(r2.status, 200)
        self.assertEqual(r3.status, 200)
        self.assertEqual(self.reason(r4), (400, "BadPriority"))

    def test_background_push(self):
        c = self.apns_client()
        good, no_ca = c.many([
            self.apns_req(apns_push_type="background", apns_priority="5", payload={"aps": {"content-available": 1}}),
            self.apns_req(apns_push_type="background", apns_priority="5", payload={"aps": {}}),
        ])
        self.assertEqual(good.status, 200)
        self.assertEqual(no_ca.status, 400)
        recs = self.standin.control("GET", "/apns/requests")
        self.assertEqual(recs[0]["content_available"], 1)
        self.assertEqual(self.standin.control("GET", "/stats")["apns"]["background_pushes"], 1)

    def test_header_formats(self):
        c = self.apns_client()
        r = c.many([
            self.apns_req(apns_id="not-a-uuid"),
            self.apns_req(apns_expiration="tomorrow"),
            self.apns_req(apns_expiration="0"),
            self.apns_req(apns_collapse_id="x" * 65),
            self.apns_req(apns_collapse_id="x" * 64),
        ])
        self.assertEqual(self.reason(r[0]), (400, "BadMessageId"))
        self.assertEqual(self.reason(r[1]), (400, "BadExpirationDate"))
        self.assertEqual(r[2].status, 200)
        self.assertEqual(self.reason(r[3]), (400, "BadCollapseId"))
        self.assertEqual(r[4].status, 200)

    def test_device_token_and_path(self):
        c = self.apns_client()
        r = c.many([
            self.apns_req(token="xyz" + "a" * 61),
            self.apns_req(token="abc"),
            self.apns_req(token="a" * 66),
            self.apns_req(token=""),
            ("POST", "/3/foo/" + DEVICE, self.apns_headers(), b'{"aps":{}}'),
            ("GET", "/3/device/" + DEVICE, self.apns_headers(), b""),
        ])
        self.assertEqual(self.reason(r[0]), (400, "BadDeviceToken"))
        self.assertEqual(self.reason(r[1]), (400, "BadDeviceToken"))
        self.assertEqual(r[2].status, 200)
        self.assertEqual(self.reason(r[3]), (400, "MissingDeviceToken"))
        self.assertEqual(self.reason(r[4]), (404, "BadPath"))
        self.assertEqual(self.reason(r[5]), (405, "MethodNotAllowed"))

    def test_payload_limits(self):
        c = self.apns_client()
        big = {"aps": {"alert": "x" * 4100}}
        voip_ok = {"aps": {}, "x": "y" * 4500}
        r = c.many([
            self.apns_req(payload=big),
            ("POST", f"/3/device/{DEVICE}", self.apns_headers(), b""),
            ("POST", f"/3/device/{DEVICE}", self.apns_headers(), b"{not json"),
            self.apns_req(payload={"noaps": 1}),
            self.apns_req(payload=voip_ok, apns_push_type="voip", apns_topic=TOPIC + ".voip"),
        ])
        self.assertEqual(self.reason(r[0]), (413, "PayloadTooLarge"))
        self.assertEqual(self.reason(r[1]), (400, "PayloadEmpty"))
        self.assertEqual(self.reason(r[2]), (400, "PayloadEmpty"))
        self.assertEqual(self.reason(r[3]), (400, "PayloadEmpty"))
        self.assertEqual(r[4].status, 200)

    def test_large_upload_flow_control(self):
        # A 200 KB body must not stall the connection (server acknowledges received data).
        c = self.apns_client()
        body = b'{"aps":{},"x":"' + b"y" * 200_000 + b'"}'
        sid = c.conn.get_next_available_stream_id()
        hdrs = [(":method", "POST"), (":scheme", "https"), (":authority", "x"), (":path", f"/3/device/{DEVICE}")]
        c.conn.send_headers(sid, hdrs + self.apns_headers(), end_stream=False)
        resp = H2Response()
        sent = 0
        while sent < len(body):
            window = min(c.conn.local_flow_control_window(sid), c.conn.max_outbound_frame_size)
            if window == 0:
                c._pump({sid: resp}, lambda: c.conn.local_flow_control_window(sid) > 0)
                continue
            chunk = body[sent:sent + window]
            sent += len(chunk)
            c.conn.send_data(sid, chunk, end_stream=sent == len(body))
            c.sock.sendall(c.conn.data_to_send())
        c._pump({sid: resp}, lambda: resp.done)
        self.assertEqual((resp.status, resp.json()["reason"]), (413, "PayloadTooLarge"))
        self.assertEqual(self.send_apns(c).status, 200)


class ApnsRuleTests(StandinTestCase):
    def test_410_rule_with_timestamp(self):
        self.standin.control("POST", "/apns/rules", {"token": DEVICE2, "status": 410, "reason": "Unregistered",
                                                      "timestamp_ms": 1700000000123})
        c = self.apns_client()
        gone, ok = c.many([self.apns_req(token=DEVICE2), self.apns_req(token=DEVICE)])
        self.assertEqual(gone.status, 410)
        self.assertEqual(gone.json(), {"reason": "Unregistered", "timestamp": 1700000000123,
                                       "standin_detail": "programmed failure"})
        self.assertEqual(ok.status, 200)
        again = self.send_apns(c, token=DEVICE2)   # rules without times last forever
        self.assertEqual(again.status, 410)
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["rejected_by_status"], {"410": 2})

    def test_410_default_timestamp_is_now_ms(self):
        self.standin.control("POST", "/apns/rules", {"token": DEVICE2, "status": 410, "times": 1})
        resp = self.send_apns(token=DEVICE2)
        self.assertAlmostEqual(resp.json()["timestamp"], time.time() * 1000, delta=60_000)
        self.assertEqual(self.send_apns(token=DEVICE2).status, 200)

    def test_first_n_503_with_retry_after(self):
        self.standin.control("POST", "/apns/rules", {"first_n": 2, "status": 503, "reason": "ServiceUnavailable",
                                                      "retry_after": 3})
        c = self.apns_client()
        r = [self.send_apns(c) for _ in range(3)]
        self.assertEqual([x.status for x in r], [503, 503, 200])
        self.assertEqual(r[0].json()["reason"], "ServiceUnavailable")
        self.assertEqual(r[0].headers["retry-after"], "3")
        self.assertNotIn("retry-after", r[2].headers)

    def test_other_programmed_statuses(self):
        for status, reason in ((400, "BadDeviceToken"), (429, "TooManyRequests"), (500, "InternalServerError")):
            self.standin.control("POST", "/apns/rules", {"first_n": 1, "status": status})
            resp = self.send_apns()
            self.assertEqual((resp.status, resp.json()["reason"]), (status, reason))

    def test_duplicate_apns_id_counting(self):
        ids = [str(uuid.uuid4()) for _ in range(3)]
        self.standin.control("POST", "/apns/rules", {"first_n": 1, "status": 503})
        c = self.apns_client()
        self.assertEqual(self.send_apns(c, apns_id=ids[0]).status, 503)   # not accepted
        self.assertEqual(self.send_apns(c, apns_id=ids[0]).status, 200)   # retry: not a duplicate
        self.assertEqual(self.send_apns(c, apns_id=ids[0]).status, 200)   # duplicate
        self.assertEqual(self.send_apns(c, apns_id=ids[1]).status, 200)
        self.assertEqual(self.send_apns(c, apns_id=ids[1].upper()).status, 200)  # duplicate (case-insensitive)
        self.assertEqual(self.send_apns(c, apns_id=ids[2]).status, 200)
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["duplicate_apns_ids"], 2)
        self.assertEqual(stats["distinct_apns_ids"], 3)
        self.assertEqual(stats["distinct_accepted_apns_ids"], 3)
        self.assertEqual(stats["accepted"], 5)

    def test_delay(self):
        self.standin.control("POST", "/apns/rules", {"delay_ms": 400, "first_n": 1})
        c = self.apns_client()
        t0 = time.monotonic()
        self.assertEqual(self.send_apns(c).status, 200)
        self.assertGreaterEqual(time.monotonic() - t0, 0.38)
        t0 = time.monotonic()
        self.assertEqual(self.send_apns(c).status, 200)
        self.assertLess(time.monotonic() - t0, 0.38)

    def test_reset_first_n(self):
        self.standin.control("POST", "/apns/rules", {"reset_first_n": 2})
        c = self.apns_client()
        r = c.many([self.apns_req() for _ in range(3)])
        self.assertEqual([x.reset for x in r[:2]], [2, 2])   # INTERNAL_ERROR
        self.assertEqual(r[2].status, 200)
        recs = self.standin.control("GET", "/apns/requests")
        self.assertEqual([x["reset"] for x in recs], [True, True, False])

    def test_goaway_after(self):
        self.standin.control("POST", "/apns/rules", {"goaway_after": 3, "reason": "Shutdown"})
        c = self.apns_client()
        r = [self.send_apns(c) for _ in range(3)]
        self.assertEqual([x.status for x in r], [200, 200, 200])
        c._pump({}, lambda: c.goaway is not None or c.closed)
        self.assertIsNotNone(c.goaway)
        self.assertEqual(c.goaway.last_stream_id, 5)
        self.assertEqual(json.loads(c.goaway.additional_data), {"reason": "Shutdown"})
        # A new connection works (and would get its own GOAWAY after 3 more).
        self.assertEqual(self.send_apns().status, 200)
        self.assertEqual(self.standin.control("GET", "/stats")["apns"]["goaways"], 1)

    def test_goaway_with_streams_in_flight(self):
        self.standin.control("POST", "/apns/rules", {"goaway_after": 20, "times": 1})
        self.standin.control("POST", "/apns/rules", {"delay_ms": 300, "first_n": 5})
        c = self.apns_client()
        resps = c.many([self.apns_req() for _ in range(60)])
        self.assertIsNotNone(c.goaway)
        answered = [r for r in resps if r.status == 200]
        refused = [r for r in resps if r.reset is not None]
        self.assertEqual(len(answered), 20)   # the delayed ones are answered before the GOAWAY
        self.assertTrue(all(r.reset == 7 for r in refused))   # REFUSED_STREAM: safe to retry
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["accepted"], 20)
        self.assertEqual(self.send_apns().status, 200)


def read_raw_frames(client: H2Client, timeout: float):
    """Frames the server sends from now until it closes (or `timeout` passes), parsed by hyperframe alone, with their
    arrival times: for sequences h2's own client state machine would refuse (answers after a GOAWAY)."""
    import hyperframe.frame
    client.sock.settimeout(timeout)
    buffer = b""
    frames = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = client.sock.recv(65536)
        except (socket.timeout, ssl.SSLError, OSError):
            break
        if not data:
            break
        buffer += data
        while len(buffer) >= 9:
            frame, length = hyperframe.frame.Frame.parse_frame_header(memoryview(buffer[:9]))
            if len(buffer) < 9 + length:
                break
            frame.parse_body(memoryview(buffer[9:9 + length]))
            buffer = buffer[9 + length:]
            frames.append((time.monotonic(), frame))
    return frames


class ApnsTransportRuleTests(StandinTestCase):
    """Modes for testing an HTTP/2 client's transport handling: draining GOAWAY, early answers with
    RST_STREAM(NO_ERROR), a low then raised stream limit, slow tokens by prefix, a connection gone silent."""

    SLOW = "c0ffee" + "ab" * 29

    def test_token_prefix_delay(self):
        self.standin.control("POST", "/apns/rules", {"token_prefix": "c0ffee", "delay_ms": 400})
        c = self.apns_client()
        t0 = time.monotonic()
        fast = c.many([self.apns_req(token=DEVICE)])[0]
        fast_elapsed = time.monotonic() - t0
        t0 = time.monotonic()
        slow = c.many([self.apns_req(token=self.SLOW)])[0]
        slow_elapsed = time.monotonic() - t0
        self.assertEqual((fast.status, slow.status), (200, 200))
        self.assertLess(fast_elapsed, 0.38)
        self.assertGreaterEqual(slow_elapsed, 0.38)
        self.assertEqual(len(self.standin.control("GET", "/apns/rules")), 1, "a prefix rule without first_n stays")

    def test_goaway_drain_answers_streams_up_to_last_id_after_the_goaway(self):
        self.standin.control("POST", "/apns/rules", {"goaway_after": 4, "drain": True, "times": 1,
                                                      "error_code": 11, "reason": "TooManyRequests"})
        self.standin.control("POST", "/apns/rules", {"token": DEVICE2, "delay_ms": 300, "first_n": 2})
        c = self.apns_client()
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1000)
        tokens = [DEVICE2, DEVICE2] + [DEVICE] * 8
        for token in tokens:
            method, path, headers, body = self.apns_req(token=token)
            c.start(method, path, headers, body)
        t0 = time.monotonic()
        frames = read_raw_frames(c, timeout=5)
        goaways = [(t, f) for t, f in frames if f.type == 0x7]
        self.assertEqual(len(goaways), 1)
        goaway_time, goaway = goaways[0]
        self.assertEqual(goaway.last_stream_id, 7)   # the 4th request
        self.assertEqual(goaway.error_code, 11)      # ENHANCE_YOUR_CALM
        self.assertEqual(json.loads(goaway.additional_data), {"reason": "TooManyRequests"})
        answers = {f.stream_id: t for t, f in frames if f.type == 0x1}
        self.assertEqual(sorted(answers), [1, 3, 5, 7], "streams above the last id are never answered")
        self.assertGreater(answers[1], goaway_time, "delayed streams up to the last id are answered after it")
        self.assertGreaterEqual(answers[1] - t0, 0.28)
        recs = self.standin.control("GET", "/apns/requests")
        self.assertEqual([r["stream_id"] for r in recs], [1, 3, 5, 7])
        self.assertEqual(self.send_apns().status, 200)

    def test_early_answer_then_rst_no_error(self):
        self.standin.control("POST", "/apns/rules", {"early_answer_first_n": 2})
        c = self.apns_client()
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1000)
        # Headers only, body still to come: answered at once, then reset with NO_ERROR through h2.
        sid = c.conn.get_next_available_stream_id()
        hdrs = [(":method", "POST"), (":scheme", "https"), (":authority", "x"), (":path", f"/3/device/{DEVICE}")]
        c.conn.send_headers(sid, hdrs + self.apns_headers(apns_id="0a0b0c0d-1111-2222-3333-444455556666"))
        c.sock.sendall(c.conn.data_to_send())
        resp = H2Response()
        c._pump({sid: resp}, lambda: resp.reset is not None)
        self.assertEqual((resp.status, resp.reset, resp.done), (200, 0, True))
        self.assertEqual(resp.headers.get("apns-id"), "0a0b0c0d-1111-2222-3333-444455556666")
        # A whole small request: the same 200, and a RST_STREAM(NO_ERROR) written after it.
        method, path, headers, body = self.apns_req()
        c.start(method, path, headers, body)
        frames = read_raw_frames(c, timeout=0.5)
        kinds = [(f.type, getattr(f, "error_code", None)) for _, f in frames if f.stream_id == sid + 2]
        self.assertEqual(kinds, [(0x1, None), (0x3, 0)])
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual((stats["early_answers"], stats["accepted"]), (2, 2))
        self.assertTrue(all(r["early"] for r in self.standin.control("GET", "/apns/requests")))

    def test_low_then_raised_stream_limit(self):
        self.standin.control("POST", "/apns/config", {"initial_max_concurrent_streams": 2, "raise_streams_after": 3})
        c = self.apns_client()
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams is not None
                 and c.conn.remote_settings.max_concurrent_streams <= 2)
        self.assertEqual(c.conn.remote_settings.max_concurrent_streams, 2, "announced in the first SETTINGS")
        self.assertTrue(all(r.status == 200 for r in c.many([self.apns_req() for _ in range(2)])))
        self.assertEqual(c.conn.remote_settings.max_concurrent_streams, 2)
        self.assertEqual(self.send_apns(c).status, 200)
        c._pump({}, lambda: c.conn.remote_settings.max_concurrent_streams == 1000)
        self.assertTrue(all(r.status == 200 for r in c.many([self.apns_req() for _ in range(50)])))
        self.assertGreater(self.standin.control("GET", "/stats")["apns"]["max_concurrent_streams_seen"], 2)
        with self.assertRaises(AssertionError):
            self.standin.control("POST", "/apns/config", {"initial_max_concurrent_streams": -1})

    def test_stall_after(self):
        self.standin.control("POST", "/apns/rules", {"stall_after": 1, "times": 1})
        c = self.apns_client()
        self.assertEqual(self.send_apns(c).status, 200, "the first request is still answered")
        c.conn.ping(b"12345678")
        c.sock.sendall(c.conn.data_to_send())
        c.sock.settimeout(0.5)
        with self.assertRaises(AssertionError):   # nothing comes back: no PING ack, no answer
            self.send_apns(c)
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["stalls"], 1)
        self.assertGreaterEqual(stats["pings_ignored"], 1)
        self.assertEqual(self.send_apns().status, 200, "other connections are fine")

    def test_refused_stream_reset(self):
        self.standin.control("POST", "/apns/rules", {"reset_first_n": 1, "error_code": 7})
        c = self.apns_client()
        r = c.many([self.apns_req() for _ in range(2)])
        self.assertEqual([x.reset for x in r], [7, None])
        self.assertEqual(r[1].status, 200)


class FcmTests(StandinTestCase):
    MESSAGE = {"token": "fcm-token-1", "notification": {"title": "Hi", "body": "There"},
               "data": {"k": "v"}, "android": {"priority": "high", "ttl": "3600s"}}

    def test_oauth_and_send_success(self):
        c = self.fcm_client()
        tok = self.fetch_token(c)
        self.assertEqual(tok.status, 200, tok.body)
        body = tok.json()
        self.assertEqual(set(body), {"access_token", "expires_in", "token_type"})
        self.assertTrue(body["access_token"].startswith("ya29."))
        self.assertEqual(body["expires_in"], 3599)
        self.assertEqual(body["token_type"], "Bearer")
        resp = self.fcm_send(c, body["access_token"], self.MESSAGE)
        self.assertEqual(resp.status, 200, resp.body)
        self.assertRegex(resp.json()["name"], rf"^projects/{PROJECT}/messages/.+")
        recs = self.standin.control("GET", "/fcm/requests")
        self.assertEqual(recs[0]["token"], "fcm-token-1")
        self.assertEqual(recs[0]["body"]["message"]["data"], {"k": "v"})
        self.assertEqual(recs[0]["status"], 200)
        treqs = self.standin.control("GET", "/fcm/token_requests")
        self.assertEqual(treqs[0]["claims"]["iss"], EMAIL)
        self.assertEqual(treqs[0]["header"]["kid"], PKID)
        stats = self.standin.control("GET", "/stats")["fcm"]
        self.assertEqual((stats["requests"], stats["accepted"], stats["token_requests"]), (1, 1, 1))

    def test_validate_only(self):
        c = self.fcm_client()
        resp = c.request("POST", f"/v1/projects/{PROJECT}/messages:send",
                         [("authorization", f"Bearer {self.access_token()}")],
                         json.dumps({"message": self.MESSAGE, "validate_only": True}).encode())
        self.assertEqual(resp.json()["name"], f"projects/{PROJECT}/messages/fake_message_id")

    def test_token_endpoint_over_http11(self):
        ctx = ssl.create_default_context(cafile=self.standin.ca)
        ctx.set_alpn_protocols(["http/1.1"])
        parts = urlsplit(self.standin.info["token_uri"])
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, context=ctx, timeout=10)
        form = urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                          "assertion": self.assertion()})
        for _ in range(2):   # keep-alive
            conn.request("POST", parts.path, body=form,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
            resp = conn.getresponse()
            body = json.loads(resp.read())
            self.assertEqual(resp.status, 200, body)
            self.assertEqual(body["token_type"], "Bearer")
        # messages:send over HTTP/1.1 too, with a chunked body.
        chunks = iter([b'{"message":', json.dumps({"token": "t", "data": {"a": "b"}}).encode(), b"}"])
        conn.request("POST", f"/v1/projects/{PROJECT}/messages:send", body=chunks, encode_chunked=True,
                     headers={"Authorization": f"Bearer {body['access_token']}",
                              "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200, resp.read())
        resp.read()
        conn.close()
        self.assertEqual(self.standin.control("GET", "/fcm/token_requests")[0]["http_version"], "1.1")

    def test_oauth_errors(self):
        c = self.fcm_client()
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = int(time.time())
        cases = [
            (rs256_jwt(other, {"iss": EMAIL, "scope": FCM_SCOPE, "aud": self.standin.info["token_uri"],
                               "iat": now, "exp": now + 3600}), "invalid_grant", "Invalid JWT Signature."),
            (self.assertion(exp=now + 7200), "invalid_grant", "short-lived"),
            (self.assertion(iat=now - 7200, exp=now - 3600), "invalid_grant", "short-lived"),
            (self.assertion(aud="https://oauth2.googleapis.com/token"), "invalid_grant", "audience"),
            (self.assertion(iss="nobody@example.com"), "invalid_grant", "account not found"),
            (self.assertion(scope=""), "invalid_scope", "scope"),
        ]
        for assertion, error, text in cases:
            resp = self.fetch_token(c, assertion)
            self.assertEqual(resp.status, 400, resp.body)
            self.assertEqual(resp.json()["error"], error)
            self.assertIn(text, resp.json()["error_description"])
        bad_grant = c.request("POST", "/token", [("content-type", "application/x-www-form-urlencoded")],
                              b"grant_type=client_credentials")
        self.assertEqual(bad_grant.json()["error"], "unsupported_grant_type")
        self.assertEqual(self.standin.control("GET", "/stats")["fcm"]["token_requests_rejected"], 7)

    def test_non_string_data_value(self):
        c = self.fcm_client()
        msg = dict(self.MESSAGE, data={"a": "x", "count": 12})
        resp = self.fcm_send(c, self.access_token(), msg)
        self.assertEqual(resp.status, 400)
        err = resp.json()["error"]
        self.assertEqual(err["status"], "INVALID_ARGUMENT")
        self.assertEqual(err["message"], "Invalid value at 'message.data[1].value' (TYPE_STRING), 12")
        self.assertEqual(err["details"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest")
        self.assertEqual(err["details"][0]["fieldViolations"][0]["field"], "message.data[1].value")

    def test_message_validation(self):
        c = self.fcm_client()
        token = self.access_token()
        cases = [
            ({"notification": {"title": "x"}}, "Recipient of the message is not set."),
            ({"token": "t", "topic": "news"}, "oneof field 'target' is already set"),
            ({"token": "t", "notification": {"title": "x", "click_action": "y"}}, 'Unknown name "click_action"'),
            ({"token": "t", "notification": {"title": 5}}, "message.notification.title"),
            ({"token": "t", "data": {"from": "me"}}, "Invalid data payload key: from"),
            ({"token": "t", "data": {"google.x": "me"}}, "Invalid data payload key: google.x"),
            ({"token": "t", "android": {"priority": "urgent"}}, "message.android.priority"),
            ({"token": "t", "bogus": 1}, 'Unknown name "bogus" at \'message\''),
            ({"token": "not a token!"}, "The registration token is not a valid FCM registration token"),
        ]
        for message, text in cases:
            resp = self.fcm_send(c, token, message)
            self.assertEqual(resp.status, 400, (message, resp.body))
            self.assertIn(text, resp.json()["error"]["message"])
        ok = [{"token": "t", "android": {"priority": "NORMAL"}},
              {"token": "t", "apns": {"headers": {"apns-priority": "5"}, "payload": {"aps": {"badge": 1}}},
               "webpush": {"headers": {"TTL": "60"}}}]
        for message in ok:
            self.assertEqual(self.fcm_send(c, token, message).status, 200)

    def test_unregistered_rule(self):
        self.standin.control("POST", "/fcm/rules", {"token": "dead-token", "error": "UNREGISTERED"})
        c = self.fcm_client()
        token = self.access_token()
        resp = self.fcm_send(c, token, {"token": "dead-token", "data": {"a": "b"}})
        self.assertEqual(resp.status, 404)
        self.assertEqual(resp.json(), {"error": {
            "code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND",
            "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                         "errorCode": "UNREGISTERED"}]}})
        self.assertEqual(self.fcm_send(c, token, {"token": "live-token"}).status, 200)
        rec = self.standin.control("GET", "/fcm/requests")[0]
        self.assertEqual(rec["error_code"], "UNREGISTERED")
        self.assertEqual(self.standin.control("GET", "/stats")["fcm"]["rejected_by_error"], {"UNREGISTERED": 1})

    def test_other_programmed_errors(self):
        c = self.fcm_client()
        token = self.access_token()
        expected = {"INVALID_ARGUMENT": (400, "INVALID_ARGUMENT"), "UNAVAILABLE": (503, "UNAVAILABLE"),
                    "INTERNAL": (500, "INTERNAL"), "QUOTA_EXCEEDED": (429, "RESOURCE_EXHAUSTED"),
                    "SENDER_ID_MISMATCH": (403, "PERMISSION_DENIED"),
                    "THIRD_PARTY_AUTH_ERROR": (401, "UNAUTHENTICATED")}
        for code, (status, grpc) in expected.items():
            rule = {"first_n": 1, "error": code}
            if code == "UNAVAILABLE":
                rule["retry_after"] = 7
            self.standin.control("POST", "/fcm/rules", rule)
            resp = self.fcm_send(c, token, {"token": "t"})
            err = resp.json()["error"]
            self.assertEqual((resp.status, err["code"], err["status"]), (status, status, grpc))
            self.assertEqual(err["details"][0]["errorCode"], code)
            if code == "UNAVAILABLE":
                self.assertEqual(resp.headers["retry-after"], "7")
            if code == "QUOTA_EXCEEDED":
                self.assertIn("retry-after", resp.headers)
        self.assertEqual(self.fcm_send(c, token, {"token": "t"}).status, 200)

    def test_access_token_checks(self):
        c = self.fcm_client()
        token = self.access_token()
        missing = c.request("POST", f"/v1/projects/{PROJECT}/messages:send", [],
                            json.dumps({"message": {"token": "t"}}).encode())
        self.assertEqual((missing.status, missing.json()["error"]["status"]), (401, "UNAUTHENTICATED"))
        unknown = self.fcm_send(c, "ya29.bogus", {"token": "t"})
        self.assertEqual(unknown.status, 401)
        other_project = self.fcm_send(c, token, {"token": "t"}, project="someone-else")
        self.assertEqual((other_project.status, other_project.json()["error"]["status"]), (403, "PERMISSION_DENIED"))
        self.assertEqual(self.fcm_send(c, token, {"token": "t"}).status, 200)
        self.standin.control("POST", "/fcm/expire_tokens")
        expired = self.fcm_send(c, token, {"token": "t"})
        self.assertEqual(expired.status, 401)
        self.assertEqual(self.fcm_send(c, self.access_token(), {"token": "t"}).status, 200)

    def test_token_expires_in_config(self):
        self.standin.control("POST", "/fcm/config", {"token_expires_in": 1})
        c = self.fcm_client()
        body = self.fetch_token(c).json()
        self.assertEqual(body["expires_in"], 1)
        time.sleep(1.2)
        self.assertEqual(self.fcm_send(c, body["access_token"], {"token": "t"}).status, 401)

    def test_insufficient_scope(self):
        c = self.fcm_client()
        body = self.fetch_token(c, self.assertion(scope="https://www.googleapis.com/auth/userinfo.email")).json()
        resp = self.fcm_send(c, body["access_token"], {"token": "t"})
        self.assertEqual((resp.status, resp.json()["error"]["status"]), (403, "PERMISSION_DENIED"))


@unittest.skipUnless(shutil.which("curl"), "curl is not installed")
class CurlTests(StandinTestCase):
    def curl(self, *args):
        out = subprocess.run(["curl", "-sS", "--http2", "--cacert", self.standin.ca, "-o", "-",
                              "-w", "\n%{http_code} %{http_version}", *args],
                             capture_output=True, timeout=30, check=True)
        body, _, tail = out.stdout.decode().rpartition("\n")
        code, version = tail.split()
        return int(code), version, body

    def test_curl_apns(self):
        code, version, body = self.curl(
            "-X", "POST", f"{self.standin.info['apns_url']}/3/device/{DEVICE}",
            "-H", f"authorization: bearer {self.jwt}", "-H", f"apns-topic: {TOPIC}",
            "-H", "apns-push-type: alert", "-d", '{"aps":{"alert":"curl"}}')
        self.assertEqual((code, version, body), (200, "2", ""))
        code, _, body = self.curl("-X", "POST", f"{self.standin.info['apns_url']}/3/device/{DEVICE}",
                                  "-H", "apns-topic: x", "-d", "{}")
        self.assertEqual((code, json.loads(body)["reason"]), (403, "MissingProviderToken"))

    def test_curl_fcm(self):
        code, _, body = self.curl(self.standin.info["token_uri"],
                                  "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
                                  "--data-urlencode", f"assertion={self.assertion()}")
        self.assertEqual(code, 200, body)
        token = json.loads(body)["access_token"]
        code, version, body = self.curl(
            f"{self.standin.info['fcm_url']}/v1/projects/{PROJECT}/messages:send",
            "-H", f"authorization: Bearer {token}", "-H", "content-type: application/json",
            "-d", json.dumps({"message": {"token": "t", "data": {"a": "b"}}}))
        self.assertEqual((code, version), (200, "2"), body)


class ThroughputTests(StandinTestCase):
    def test_sustains_load(self):
        """3,000 notifications over 3 connections, 100 in flight each; all accepted, and fast."""
        total, conns, window = 3000, 3, 100
        errors = []
        counts = []

        def worker(n):
            try:
                c = self.standin.apns()
                done = 0
                try:
                    while done < n:
                        batch = min(window, n - done)
                        resps = c.many([self.apns_req(apns_id=str(uuid.uuid4())) for _ in range(batch)])
                        bad = [r.status for r in resps if r.status != 200]
                        if bad:
                            errors.append(bad[:3])
                        done += batch
                finally:
                    c.close()
                counts.append(done)
            except Exception as exc:  # noqa: BLE001
                errors.append(repr(exc))

        t0 = time.monotonic()
        threads = [threading.Thread(target=worker, args=(total // conns,)) for _ in range(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        elapsed = time.monotonic() - t0
        self.assertEqual(errors, [])
        stats = self.standin.control("GET", "/stats")["apns"]
        self.assertEqual(stats["accepted"], total)
        self.assertEqual(stats["duplicate_apns_ids"], 0)
        rate = total / elapsed
        sys.stderr.write(f"\n[throughput] {total} requests in {elapsed:.2f}s = {rate:.0f} req/s "
                         f"(Python client included)\n")
        # The Python client shares the machine's two cores; the server alone goes far faster (see README).
        self.assertGreater(rate, 400)


class LifecycleTests(unittest.TestCase):
    def test_exits_when_stdin_closes(self):
        s = Standin()
        try:
            s.proc.stdin.close()
            self.assertEqual(s.proc.wait(10), 0)
        finally:
            s.stop()

    def test_exits_on_sigterm(self):
        s = Standin()
        try:
            s.proc.send_signal(signal.SIGTERM)
            self.assertEqual(s.proc.wait(10), 0)
            self.assertEqual(s.proc.stdout.read(), b"")   # nothing after the one line
        finally:
            s.stop()

    def test_restart_reuses_ca(self):
        s = Standin()
        try:
            with open(s.ca, "rb") as f:
                first = f.read()
            proc = subprocess.Popen([sys.executable, STANDIN, "--workdir", s.workdir],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                info = json.loads(proc.stdout.readline())
                with open(info["ca_file"], "rb") as f:
                    self.assertEqual(f.read(), first)
                H2Client(info["apns_url"], info["ca_file"]).close()   # new server cert chains to the same CA
            finally:
                proc.stdin.close()
                proc.wait(10)
                proc.stdout.close()
                proc.stderr.close()
        finally:
            s.stop()


if __name__ == "__main__":
    unittest.main()
