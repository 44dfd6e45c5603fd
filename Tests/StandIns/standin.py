#!/usr/bin/env python3
"""Herald test stand-ins for Apple's and Google's push services.

One process serves four ports on loopback:

* an APNs provider API stand-in (HTTP/2 over TLS, ALPN "h2" only), twice: as
  Apple's production host and as its sandbox host, each refusing the tokens
  registered as the other's,
* an FCM HTTP v1 + Google OAuth2 token endpoint stand-in (HTTP/2 over TLS,
  ALPN "h2" or "http/1.1"),
* a plain HTTP/1.1 JSON control port for tests (no TLS).

At start it creates (or reuses) a throwaway test CA in --workdir, issues a
server certificate for 127.0.0.1 / localhost / ::1, binds every port on an
ephemeral port (unless told otherwise) and prints exactly one JSON line on
stdout.  Nothing else is ever written to stdout; errors go to stderr.

The process exits on SIGTERM / SIGINT, and when its stdin reaches EOF (so a
test runner that dies takes the stand-in with it).  See README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import functools
import ipaddress
import itertools
import json
import logging
import os
import re
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack.hpack
import hyperframe.frame
from h2.errors import ErrorCodes
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

log = logging.getLogger("standin")

# --------------------------------------------------------------------------
# Constants taken from Apple's and Google's documentation
# --------------------------------------------------------------------------

APNS_PATH_PREFIX = "/3/device/"
# Apple's two hosts: a development build's token is known to the sandbox host only, an App Store or TestFlight
# build's to the production host only; the other host answers it 400 BadDeviceToken.
APNS_ENVIRONMENTS = ("production", "sandbox")

# apns-push-type -> suffix the apns-topic must carry ("Sending notification
# requests to APNs", "Know when to use push types").  None: any registered
# topic (mdm uses the UID topic of the MDM certificate).
APNS_PUSH_TYPE_TOPIC_SUFFIX = {
    "alert": "",
    "background": "",
    "location": ".location-query",
    "voip": ".voip",
    "complication": ".complication",
    "fileprovider": ".pushkit.fileprovider",
    "mdm": None,
    "liveactivity": ".push-type.liveactivity",
    "pushtotalk": ".voip-ptt",
}

APNS_MAX_PAYLOAD = 4096          # bytes
APNS_MAX_PAYLOAD_VOIP = 5120     # bytes, VoIP notifications
APNS_MAX_COLLAPSE_ID = 64        # bytes
APNS_TOKEN_MAX_AGE = 3600        # provider token iat older than this -> ExpiredProviderToken
APNS_TOKEN_FUTURE_SKEW = 600     # iat further in the future -> InvalidProviderToken (stand-in rule)
APNS_TOKEN_UPDATE_INTERVAL = 1200  # a new provider token sooner -> TooManyProviderTokenUpdates

# Default reason for a programmed status.
APNS_DEFAULT_REASON = {
    400: "BadDeviceToken",
    403: "Forbidden",
    404: "BadPath",
    405: "MethodNotAllowed",
    410: "Unregistered",
    413: "PayloadTooLarge",
    429: "TooManyRequests",
    500: "InternalServerError",
    503: "ServiceUnavailable",
}

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
DIGITS_RE = re.compile(r"^[0-9]+$")
FCM_TOKEN_RE = re.compile(r"^[A-Za-z0-9_\-:.]+$")
DURATION_RE = re.compile(r"^-?[0-9]+(\.[0-9]{1,9})?s$")
FCM_SEND_RE = re.compile(r"^/v1/projects/([^/]+)/messages:send$")

JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FCM_SCOPES_OK = (
    "https://www.googleapis.com/auth/firebase.messaging",
    "https://www.googleapis.com/auth/cloud-platform",
)
FCM_ACCESS_TOKEN_LIFETIME = 3599  # what Google reports for a one-hour token
FCM_MAX_ASSERTION_LIFETIME = 3600
FCM_ASSERTION_SKEW = 300

GOOGLE_DEVCONSOLE = "See https://developers.google.com/identity/sign-in/web/devconsole-project."
FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

# FcmError code -> (HTTP status, google.rpc status, message).  Messages as FCM
# sends them where the real text is known.
FCM_ERRORS = {
    "UNREGISTERED": (404, "NOT_FOUND", "Requested entity was not found."),
    "INVALID_ARGUMENT": (400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"),
    "SENDER_ID_MISMATCH": (403, "PERMISSION_DENIED", "SenderId mismatch"),
    "QUOTA_EXCEEDED": (429, "RESOURCE_EXHAUSTED",
                       "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' "
                       "of service 'fcm.googleapis.com'."),
    "UNAVAILABLE": (503, "UNAVAILABLE", "The service is currently unavailable."),
    "INTERNAL": (500, "INTERNAL", "Internal error encountered."),
    "THIRD_PARTY_AUTH_ERROR": (401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service"),
}
FCM_STATUS_TO_ERROR = {404: "UNREGISTERED", 400: "INVALID_ARGUMENT", 403: "SENDER_ID_MISMATCH",
                       429: "QUOTA_EXCEEDED", 503: "UNAVAILABLE", 500: "INTERNAL", 401: "THIRD_PARTY_AUTH_ERROR"}

FCM_REQUEST_FIELDS = {"message", "validate_only", "validateOnly"}
FCM_MESSAGE_FIELDS = {"name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions",
                      "token", "topic", "condition"}
FCM_NOTIFICATION_FIELDS = ("title", "body", "image")
FCM_RESERVED_DATA_KEYS = {"from", "notification", "message_type"}
FCM_RESERVED_DATA_PREFIXES = ("google.", "gcm.")
FCM_ANDROID_PRIORITIES = {"normal", "high", "NORMAL", "HIGH"}

H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
MAX_BODY_KEEP = 1 << 20  # bytes of a request body kept (the rest is counted, acknowledged and dropped)


# hpack's pure-Python Huffman decoder dominates the cost of a request: Apple asks
# providers to send :path and authorization as literals without indexing, so the
# same JWT is Huffman-decoded on every request.  Decoding is a pure function of
# the bytes, so memoise it.
_decode_huffman_uncached = hpack.hpack.decode_huffman


@functools.lru_cache(maxsize=16384)
def _decode_huffman_cached(data: bytes) -> bytes:
    return _decode_huffman_uncached(data)


def _decode_huffman(data):
    if isinstance(data, bytes):
        return _decode_huffman_cached(data)
    return _decode_huffman_uncached(data)


hpack.hpack.decode_huffman = _decode_huffman


class StandinError(Exception):
    """A control-API request the stand-in cannot honour (HTTP 400)."""


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

def b64url_decode(text: str) -> bytes:
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_\-]*", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_jwt(token: str):
    """Return (header, claims, signature, signing_input) or raise ValueError."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("JWT must have three parts")
    header = json.loads(b64url_decode(parts[0]))
    claims = json.loads(b64url_decode(parts[1]))
    signature = b64url_decode(parts[2])
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise ValueError("JWT header and claims must be objects")
    return header, claims, signature, (parts[0] + "." + parts[1]).encode("ascii")


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_bytes(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")


def json_repr(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def decode_headers(raw):
    """h2 bytes headers -> (dict of last values, set of duplicated names)."""
    headers = {}
    dups = set()
    for name, value in raw:
        if isinstance(name, bytes):
            name = name.decode("latin-1")
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        name = name.lower()
        if name in headers:
            dups.add(name)
        headers[name] = value
    return headers, dups


def google_error(code: int, status: str, message: str, details=None) -> dict:
    err = {"code": code, "message": message, "status": status}
    if details:
        err["details"] = details
    return {"error": err}


def fcm_error_detail(code: str) -> dict:
    return {"@type": FCM_ERROR_TYPE, "errorCode": code}


def error_info(reason: str) -> dict:
    return {"@type": ERROR_INFO_TYPE, "reason": reason, "domain": "googleapis.com",
            "metadata": {"service": "fcm.googleapis.com", "method": "google.firebase.fcm.v1.FcmService.SendMessage"}}


class FcmInvalid(Exception):
    """A request body FCM would answer with 400 INVALID_ARGUMENT."""

    def __init__(self, message: str, field: str | None = None, fcm_code: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.fcm_code = fcm_code

    def body(self) -> dict:
        details = []
        if self.fcm_code:
            details.append(fcm_error_detail(self.fcm_code))
        else:
            violation = {"description": self.message}
            if self.field:
                violation = {"field": self.field, "description": self.message}
            details.append({"@type": BAD_REQUEST_TYPE, "fieldViolations": [violation]})
        return google_error(400, "INVALID_ARGUMENT", self.message, details)


class Resp:
    """What a service decided to answer for one request."""

    __slots__ = ("status", "headers", "body", "delay", "reset_code")

    def __init__(self, status=200, headers=None, body=b"", delay=0.0, reset_code=None):
        self.status = status
        self.headers = headers or []
        self.body = body
        self.delay = delay
        self.reset_code = reset_code


class ConnCtx:
    """Per-connection facts a service keeps (shared by h2 and HTTP/1.1)."""

    def __init__(self, service: str, conn_id: int, http_version: str, environment=None):
        self.service = service
        self.environment = environment  # APNs: "production" or "sandbox", the host it reached
        self.conn_id = conn_id
        self.http_version = http_version
        self.bound_kid = None
        self.bound_team = None
        self.authenticated = False
        self.on_first_auth = None   # callback (raises MAX_CONCURRENT_STREAMS)
        self.requests = 0


# --------------------------------------------------------------------------
# Programmed behaviour (rules)
# --------------------------------------------------------------------------

class Rules:
    """Ordered programmed behaviours for one service.

    kinds: "fail" (answer with a status), "delay" (answer normally, slowly),
    "reset" (RST_STREAM instead of answering), "goaway" (GOAWAY after N
    requests on a connection), "early" (answer 200 on the headers, then
    RST_STREAM(NO_ERROR)), "stall" (go silent after N requests on a
    connection).  A rule with a token matches only that token, one with a
    token_prefix only tokens starting with it; "remaining" is first_n /
    reset_first_n / early_answer_first_n / times (None = forever).
    """

    def __init__(self):
        self.items = []
        self.ids = itertools.count(1)

    def add(self, rule: dict) -> dict:
        rule["id"] = next(self.ids)
        self.items.append(rule)
        return rule

    def clear(self):
        self.items = []

    def take(self, kind: str, token):
        for rule in self.items:
            if rule["kind"] != kind:
                continue
            if rule.get("token") is not None and rule["token"] != token:
                continue
            prefix = rule.get("token_prefix")
            if prefix is not None and not (isinstance(token, str) and token.startswith(prefix)):
                continue
            if rule["remaining"] is not None:
                rule["remaining"] -= 1
                if rule["remaining"] <= 0:
                    self.items.remove(rule)
            return rule
        return None

    def peek(self, kind: str):
        for rule in self.items:
            if rule["kind"] == kind:
                return rule
        return None

    def consume(self, rule):
        if rule["remaining"] is not None:
            rule["remaining"] -= 1
            if rule["remaining"] <= 0 and rule in self.items:
                self.items.remove(rule)

    def public(self):
        return [dict(r) for r in self.items]


def _opt_int(body: dict, key: str, minimum: int = 0):
    if key not in body or body[key] is None:
        return None
    value = body[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise StandinError(f"{key} must be an integer >= {minimum}")
    return value


def _opt_number(body: dict, key: str):
    if key not in body or body[key] is None:
        return None
    value = body[key]
    if not is_number(value) or value < 0:
        raise StandinError(f"{key} must be a non-negative number")
    return value


def normalize_rule(body: dict, service: str) -> dict:
    """Turn a control-API rule body into an internal rule (raises StandinError)."""
    if not isinstance(body, dict):
        raise StandinError("rule must be a JSON object")
    token = body.get("token")
    if token is not None and not isinstance(token, str):
        raise StandinError("token must be a string")
    token_prefix = body.get("token_prefix")
    if token_prefix is not None and not isinstance(token_prefix, str):
        raise StandinError("token_prefix must be a string")
    first_n = _opt_int(body, "first_n", 1)
    times = _opt_int(body, "times", 1)
    delay_ms = _opt_number(body, "delay_ms")
    retry_after = _opt_number(body, "retry_after")
    rule = {"token": token, "token_prefix": token_prefix, "source": dict(body)}

    if "goaway_after" in body:
        rule["kind"] = "goaway"
        rule["n"] = _opt_int(body, "goaway_after", 1)
        rule["remaining"] = times            # number of connections to GOAWAY; None = every connection
        rule["error_code"] = _opt_int(body, "error_code", 0) or 0
        reason = body.get("reason")
        rule["debug_data"] = json_bytes({"reason": reason}) if isinstance(reason, str) else b""
        drain = body.get("drain", False)
        if not isinstance(drain, bool):
            raise StandinError("drain must be true or false")
        rule["drain"] = drain
        return rule
    if "stall_after" in body:
        rule["kind"] = "stall"
        rule["n"] = _opt_int(body, "stall_after", 1)
        rule["remaining"] = times            # number of connections to stall; None = every connection
        return rule
    if "early_answer_first_n" in body:
        if service != "apns":
            raise StandinError("early_answer_first_n is an APNs rule")
        rule["kind"] = "early"
        rule["remaining"] = _opt_int(body, "early_answer_first_n", 1)
        return rule
    if "reset_first_n" in body:
        rule["kind"] = "reset"
        rule["remaining"] = _opt_int(body, "reset_first_n", 1)
        code = _opt_int(body, "error_code", 0)
        rule["error_code"] = int(ErrorCodes.INTERNAL_ERROR) if code is None else code
        return rule

    remaining = first_n if first_n is not None else times
    rule["remaining"] = remaining
    rule["delay"] = (delay_ms or 0) / 1000.0
    status = _opt_int(body, "status", 100)
    if service == "apns":
        reason = body.get("reason")
        if status is None and reason is None:
            if delay_ms is None:
                raise StandinError("rule needs status/reason, delay_ms, reset_first_n or goaway_after")
            rule["kind"] = "delay"
            return rule
        if status is None:
            status = {v: k for k, v in APNS_DEFAULT_REASON.items()}.get(reason)
            if status is None:
                raise StandinError("status is required for this reason")
        if reason is None:
            reason = APNS_DEFAULT_REASON.get(status, "InternalServerError")
        if not isinstance(reason, str):
            raise StandinError("reason must be a string")
        rule.update(kind="fail", status=status, reason=reason,
                    timestamp_ms=_opt_int(body, "timestamp_ms", 0), retry_after=retry_after)
        return rule

    # FCM
    error = body.get("error") or body.get("error_code") or body.get("reason")
    if error is None and status is None:
        if delay_ms is None:
            raise StandinError("rule needs error/status, delay_ms, reset_first_n or goaway_after")
        rule["kind"] = "delay"
        return rule
    if error is None:
        error = FCM_STATUS_TO_ERROR.get(status)
        if error is None:
            raise StandinError("error is required for this status")
    if error not in FCM_ERRORS:
        raise StandinError(f"unknown FCM error {error!r}; one of {sorted(FCM_ERRORS)}")
    default_status, grpc_status, message = FCM_ERRORS[error]
    if error == "QUOTA_EXCEEDED" and retry_after is None:
        retry_after = 1
    rule.update(kind="fail", error=error, status=status or default_status, grpc_status=grpc_status,
                message=body.get("message") if isinstance(body.get("message"), str) else message,
                retry_after=retry_after)
    return rule


def fmt_retry_after(value) -> str:
    if isinstance(value, float) and not value.is_integer():
        return str(value)
    return str(int(value))


# --------------------------------------------------------------------------
# Shared state
# --------------------------------------------------------------------------

DEFAULT_APNS_CONFIG = {
    "token_update_limit": True,
    "token_update_interval_seconds": APNS_TOKEN_UPDATE_INTERVAL,
    "initial_single_stream": False,
    "connection_key_binding": True,
    "strict_payload": True,
    "max_concurrent_streams": 1000,
    "initial_max_concurrent_streams": 0,
    "raise_streams_after": 1,
}
DEFAULT_FCM_CONFIG = {
    "token_expires_in": FCM_ACCESS_TOKEN_LIFETIME,
    "max_concurrent_streams": 100,
}


class Store:
    """All state, guarded by one lock (the control thread and the event loop share it)."""

    def __init__(self):
        self.lock = threading.RLock()
        self.apns_keys = {}      # kid -> {team_id, topics, public_key, public_key_pem}
        self.fcm_accounts = {}   # client_email -> {project_id, public_key, private_key_id, ...}
        self.access_tokens = {}  # access token -> {client_email, project_id, expiry, scopes}
        self.token_uri = ""
        self.apns_token_environments = {}  # lower-case token -> "production" | "sandbox" (the host that knows it)
        self.conn_ids = {"apns": itertools.count(1), "fcm": itertools.count(1)}
        self.reset()

    # ---- lifecycle -------------------------------------------------------

    def reset(self):
        with self.lock:
            self.clock_offset = 0.0
            self.apns_config = dict(DEFAULT_APNS_CONFIG)
            self.fcm_config = dict(DEFAULT_FCM_CONFIG)
            self.apns_rules = Rules()
            self.fcm_rules = Rules()
            self.apns_requests = []
            self.fcm_requests = []
            self.fcm_token_requests = []
            self.jwt_cache = {}
            self.jwt_seen = {}        # kid -> set of distinct JWT texts presented
            self.jwt_adopted = {}     # kid -> {jwt text: adopted at}
            self.jwt_last_adopt = {}  # kid -> time of the last adoption
            self.apns_ids_seen = set()
            self.apns_ids_accepted = set()
            self.fcm_bodies_accepted = set()
            self.apns_stats = {
                "requests": 0, "accepted": 0, "rejected_by_status": {}, "rejected_by_reason": {},
                "distinct_apns_ids": 0, "duplicate_apns_ids": 0, "distinct_accepted_apns_ids": 0,
                "distinct_jwts": {}, "token_updates_rejected": 0, "connections": 0, "max_open_connections": 0,
                "max_concurrent_streams_seen": 0, "resets": 0, "goaways": 0, "delayed": 0,
                "background_pushes": 0, "early_answers": 0, "stalls": 0, "pings_ignored": 0,
            }
            self.fcm_stats = {
                "requests": 0, "accepted": 0, "rejected_by_status": {}, "rejected_by_error": {},
                "validate_only": 0, "duplicate_messages": 0, "token_requests": 0, "tokens_issued": 0,
                "token_requests_rejected": 0, "connections": 0, "max_open_connections": 0,
                "max_concurrent_streams_seen": 0,
                "resets": 0, "goaways": 0, "delayed": 0, "stalls": 0, "pings_ignored": 0,
            }

    def now(self) -> float:
        return time.time() + self.clock_offset

    def new_conn(self, service: str, http_version: str, environment=None) -> ConnCtx:
        with self.lock:
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            stats["connections"] += 1
            return ConnCtx(service, next(self.conn_ids[service]), http_version, environment)

    def note_open(self, service: str, count: int):
        """The most connections open at once (a fleet's budget caps them)."""
        with self.lock:
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            stats["max_open_connections"] = max(stats["max_open_connections"], count)

    def note_streams(self, service: str, count: int):
        with self.lock:
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            if count > stats["max_concurrent_streams_seen"]:
                stats["max_concurrent_streams_seen"] = count

    def config_for(self, service: str) -> dict:
        return self.apns_config if service == "apns" else self.fcm_config

    def rules_for(self, service: str) -> Rules:
        return self.apns_rules if service == "apns" else self.fcm_rules

    def goaway_rule(self, service: str, ctx: ConnCtx):
        """A GOAWAY rule that fires for this connection now, consumed, or None."""
        with self.lock:
            rules = self.rules_for(service)
            rule = rules.peek("goaway")
            if rule is None or ctx.requests < rule["n"]:
                return None
            rules.consume(rule)
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            stats["goaways"] += 1
            return dict(rule)

    def stall_rule(self, service: str, ctx: ConnCtx):
        """A stall rule that fires for this connection now, consumed, or None."""
        with self.lock:
            rules = self.rules_for(service)
            rule = rules.peek("stall")
            if rule is None or ctx.requests < rule["n"]:
                return None
            rules.consume(rule)
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            stats["stalls"] += 1
            return dict(rule)

    def note_ignored_ping(self, service: str):
        with self.lock:
            stats = self.apns_stats if service == "apns" else self.fcm_stats
            stats["pings_ignored"] += 1

    def early_answer(self, service: str, ctx: ConnCtx, stream_id, raw_headers):
        """Resp for a request an early-answer rule takes (answered on its headers alone), else None."""
        if service != "apns":
            return None
        headers, _ = decode_headers(raw_headers)
        path = (headers.get(":path") or "").split("?", 1)[0]
        token = path[len(APNS_PATH_PREFIX):] if path.startswith(APNS_PATH_PREFIX) else None
        with self.lock:
            rule = self.apns_rules.take("early", token)
            if rule is None:
                return None
            now = self.now()
            ctx.requests += 1
            req_id = headers.get("apns-id")
            resp_id = req_id.lower() if isinstance(req_id, str) and UUID_RE.match(req_id) else str(uuid.uuid4())
            rec = {
                "index": len(self.apns_requests), "time": now, "connection_id": ctx.conn_id,
                "stream_id": stream_id, "method": headers.get(":method"), "path": headers.get(":path"),
                "token": token, "headers": headers, "request_apns_id": req_id, "apns_id": resp_id,
                "kid": None, "iat": None, "iss": None, "team_id": None,
                "push_type": headers.get("apns-push-type"), "topic": headers.get("apns-topic"),
                "priority": headers.get("apns-priority"), "payload": None, "payload_raw": None,
                "payload_size": None, "content_available": None, "status": 200, "reason": None,
                "delay_ms": 0, "reset": False, "early": True, "environment": ctx.environment,
            }
            self.apns_requests.append(rec)
            self.apns_stats["requests"] += 1
            self.apns_stats["early_answers"] += 1
            self._apns_account(rec, req_id, resp_id, 200, None, 0)
            return Resp(200, [("apns-id", resp_id)])

    # ---- control: registration -------------------------------------------

    def add_apns_key(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise StandinError("body must be a JSON object")
        kid, team = body.get("key_id"), body.get("team_id")
        topics = body.get("topics")
        if topics is None:
            topics = [body.get("topic")]
        if not (isinstance(kid, str) and kid and isinstance(team, str) and team):
            raise StandinError("key_id and team_id are required strings")
        if not topics or not all(isinstance(t, str) and t for t in topics):
            raise StandinError("topic (string) or topics (list of strings) is required")
        try:
            key = serialization.load_pem_public_key(body.get("public_key_pem", "").encode())
        except Exception as exc:  # noqa: BLE001
            raise StandinError(f"public_key_pem: {exc}") from None
        if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
            raise StandinError("public_key_pem must be a P-256 EC public key")
        with self.lock:
            self.apns_keys[kid] = {"key_id": kid, "team_id": team, "topics": list(topics),
                                   "public_key": key, "public_key_pem": body["public_key_pem"]}
            self.jwt_cache = {}
        return {"key_id": kid, "team_id": team, "topics": list(topics)}

    def add_apns_tokens(self, body: dict) -> dict:
        """Device tokens of one environment: the other host answers them BadDeviceToken."""
        if not isinstance(body, dict):
            raise StandinError("body must be a JSON object")
        environment, tokens = body.get("environment"), body.get("tokens")
        if environment not in APNS_ENVIRONMENTS:
            raise StandinError("environment must be \"production\" or \"sandbox\"")
        if not isinstance(tokens, list) or not all(isinstance(t, str) and t for t in tokens):
            raise StandinError("tokens must be a list of strings")
        with self.lock:
            for token in tokens:
                self.apns_token_environments[token.lower()] = environment
            return {"registered": len(tokens), "environment": environment}

    def add_fcm_account(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise StandinError("body must be a JSON object")
        email, project = body.get("client_email"), body.get("project_id")
        if not (isinstance(email, str) and email and isinstance(project, str) and project):
            raise StandinError("client_email and project_id are required strings")
        pkid = body.get("private_key_id")
        if pkid is not None and not isinstance(pkid, str):
            raise StandinError("private_key_id must be a string")
        try:
            key = serialization.load_pem_public_key(body.get("public_key_pem", "").encode())
        except Exception as exc:  # noqa: BLE001
            raise StandinError(f"public_key_pem: {exc}") from None
        if not isinstance(key, rsa.RSAPublicKey):
            raise StandinError("public_key_pem must be an RSA public key")
        with self.lock:
            self.fcm_accounts[email] = {"client_email": email, "project_id": project, "private_key_id": pkid,
                                        "public_key": key, "public_key_pem": body["public_key_pem"]}
        return {"client_email": email, "project_id": project, "private_key_id": pkid}

    # ---- control: configuration -------------------------------------------

    def set_apns_config(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise StandinError("body must be a JSON object")
        with self.lock:
            for key, value in body.items():
                if key not in DEFAULT_APNS_CONFIG:
                    raise StandinError(f"unknown APNs config key {key!r}")
                if isinstance(DEFAULT_APNS_CONFIG[key], bool):
                    if not isinstance(value, bool):
                        raise StandinError(f"{key} must be true or false")
                elif key == "initial_max_concurrent_streams":
                    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                        raise StandinError(f"{key} must be an integer >= 0 (0: off)")
                elif not is_number(value) or value < 1:
                    raise StandinError(f"{key} must be a positive number")
                self.apns_config[key] = value
            return dict(self.apns_config)

    def set_fcm_config(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise StandinError("body must be a JSON object")
        with self.lock:
            for key, value in body.items():
                if key not in DEFAULT_FCM_CONFIG:
                    raise StandinError(f"unknown FCM config key {key!r}")
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise StandinError(f"{key} must be a positive integer")
                self.fcm_config[key] = value
            return dict(self.fcm_config)

    def expire_fcm_tokens(self) -> dict:
        with self.lock:
            past = self.now() - 1
            for info in self.access_tokens.values():
                info["expiry"] = min(info["expiry"], past)
            return {"expired": len(self.access_tokens)}

    def stats(self) -> dict:
        with self.lock:
            apns = json.loads(json.dumps(self.apns_stats))
            fcm = json.loads(json.dumps(self.fcm_stats))
            apns["distinct_jwts"] = {kid: len(s) for kid, s in self.jwt_seen.items()}
            fcm["active_access_tokens"] = sum(1 for t in self.access_tokens.values() if t["expiry"] > self.now())
            return {"apns": apns, "fcm": fcm}

    # ---- APNs ------------------------------------------------------------

    def _verify_apns_jwt(self, token: str) -> dict:
        """Time-independent checks of a provider token (cached per token text)."""
        info = {"ok": False, "kid": None, "iat": None, "iss": None, "detail": None}
        try:
            header, claims, sig, signing_input = parse_jwt(token)
        except Exception:  # noqa: BLE001
            info["detail"] = "provider token is not a JWS compact serialization"
            return info
        kid, iat, iss = header.get("kid"), claims.get("iat"), claims.get("iss")
        info.update(kid=kid if isinstance(kid, str) else None, iss=iss if isinstance(iss, str) else None,
                    iat=iat if is_number(iat) else None)
        if header.get("alg") != "ES256":
            info["detail"] = "alg must be ES256"
            return info
        if not isinstance(kid, str):
            info["detail"] = "kid missing"
            return info
        key = self.apns_keys.get(kid)
        if key is None:
            info["detail"] = f"unknown key id {kid}"
            return info
        if not isinstance(iss, str) or iss != key["team_id"]:
            info["detail"] = "iss is not the team of this key"
            return info
        if not is_number(iat) or float(iat) != int(iat):
            info["detail"] = "iat must be an integer (seconds)"
            return info
        if len(sig) != 64:
            info["detail"] = "ES256 signature must be 64 bytes (r||s)"
            return info
        der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        try:
            key["public_key"].verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            info["detail"] = "signature does not verify"
            return info
        info.update(ok=True, iat=int(iat), team_id=key["team_id"], topics=key["topics"])
        return info

    def _apns_auth(self, ctx: ConnCtx, authorization, now: float, rec: dict):
        """Return None when the provider token is acceptable, else (status, reason, detail)."""
        if authorization is None or not authorization.strip():
            return 403, "MissingProviderToken", None
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer":
            return 403, "InvalidProviderToken", "authorization scheme must be bearer"
        if not token:
            return 403, "MissingProviderToken", None
        info = self.jwt_cache.get(token)
        if info is None:
            if len(self.jwt_cache) > 10000:
                self.jwt_cache = {}
            info = self._verify_apns_jwt(token)
            self.jwt_cache[token] = info
        rec["kid"], rec["iat"], rec["iss"] = info["kid"], info["iat"], info["iss"]
        kid = info["kid"]
        if kid is not None:
            self.jwt_seen.setdefault(kid, set()).add(token)
        if not info["ok"]:
            return 403, "InvalidProviderToken", info["detail"]
        if info["iat"] > now + APNS_TOKEN_FUTURE_SKEW:
            return 403, "InvalidProviderToken", "iat is in the future"
        if info["iat"] < now - APNS_TOKEN_MAX_AGE:
            return 403, "ExpiredProviderToken", None
        if self.apns_config["connection_key_binding"] and ctx.bound_kid is not None and ctx.bound_kid != kid:
            if ctx.bound_team != info["team_id"]:
                return 403, "InvalidProviderToken", "another team's token on this connection"
            return 403, "UnrelatedKeyIdInToken", "another key id on this connection"
        adopted = self.jwt_adopted.setdefault(kid, {})
        if token not in adopted:
            last = self.jwt_last_adopt.get(kid)
            interval = self.apns_config["token_update_interval_seconds"]
            if self.apns_config["token_update_limit"] and last is not None and now - last < interval:
                self.apns_stats["token_updates_rejected"] += 1
                return 429, "TooManyProviderTokenUpdates", None
            adopted[token] = now
            self.jwt_last_adopt[kid] = now
        if ctx.bound_kid is None:
            ctx.bound_kid, ctx.bound_team = kid, info["team_id"]
        rec["team_id"] = info["team_id"]
        rec["topics_allowed"] = info["topics"]
        return None

    def handle_apns(self, ctx: ConnCtx, stream_id, raw_headers, body: bytes, body_size: int) -> Resp:
        headers, dups = decode_headers(raw_headers)
        with self.lock:
            now = self.now()
            ctx.requests += 1
            rec = {
                "index": len(self.apns_requests), "time": now, "connection_id": ctx.conn_id,
                "stream_id": stream_id, "method": headers.get(":method"), "path": headers.get(":path"),
                "token": None, "headers": headers, "request_apns_id": headers.get("apns-id"),
                "apns_id": None, "kid": None, "iat": None, "iss": None, "team_id": None,
                "push_type": headers.get("apns-push-type"), "topic": headers.get("apns-topic"),
                "priority": headers.get("apns-priority"), "payload": None, "payload_raw": None,
                "payload_size": body_size, "content_available": None, "status": None, "reason": None,
                "delay_ms": 0, "reset": False, "early": False, "environment": ctx.environment,
            }
            self.apns_requests.append(rec)
            self.apns_stats["requests"] += 1

            path = (headers.get(":path") or "").split("?", 1)[0]
            token = path[len(APNS_PATH_PREFIX):] if path.startswith(APNS_PATH_PREFIX) else None
            rec["token"] = token

            reset_rule = self.apns_rules.take("reset", token)
            if reset_rule is not None:
                rec["reset"] = True
                self.apns_stats["resets"] += 1
                return Resp(reset_code=reset_rule["error_code"])

            req_id = headers.get("apns-id")
            resp_id = req_id.lower() if isinstance(req_id, str) and UUID_RE.match(req_id) else str(uuid.uuid4())
            rec["apns_id"] = resp_id
            status, reason, detail, extra = self._apns_decide(ctx, headers, dups, token, body, body_size, now, rec)
            delay = 0.0
            retry_after = None
            if status == 200:
                rule = self.apns_rules.take("fail", token)
                if rule is None:
                    drule = self.apns_rules.take("delay", token)
                    if drule is not None:
                        delay = drule["delay"]
                else:
                    status, reason, delay, retry_after = rule["status"], rule["reason"], rule["delay"], rule["retry_after"]
                    if status == 410 or reason in ("Unregistered", "ExpiredToken"):
                        ts = rule["timestamp_ms"]
                        extra = {"timestamp": ts if ts is not None else int(now * 1000)}
                    detail = "programmed failure"
            rec.pop("topics_allowed", None)
            rec["status"], rec["reason"] = status, reason
            rec["delay_ms"] = int(delay * 1000)
            self._apns_account(rec, req_id, resp_id, status, reason, delay)

            resp_headers = [("apns-id", resp_id)]
            body_out = b""
            if status != 200:
                payload = {"reason": reason}
                if extra:
                    payload.update(extra)
                if detail:
                    payload["standin_detail"] = detail
                body_out = json_bytes(payload)
                resp_headers.append(("content-type", "application/json"))
                if retry_after is not None:
                    resp_headers.append(("retry-after", fmt_retry_after(retry_after)))
            return Resp(status, resp_headers, body_out, delay)

    def _apns_account(self, rec, req_id, resp_id, status, reason, delay):
        stats = self.apns_stats
        if isinstance(req_id, str) and UUID_RE.match(req_id):
            if req_id.lower() in self.apns_ids_accepted:
                stats["duplicate_apns_ids"] += 1
        if resp_id not in self.apns_ids_seen:
            self.apns_ids_seen.add(resp_id)
            stats["distinct_apns_ids"] += 1
        if delay:
            stats["delayed"] += 1
        if rec["push_type"] == "background" and status == 200:
            stats["background_pushes"] += 1
        if status == 200:
            stats["accepted"] += 1
            if resp_id not in self.apns_ids_accepted:
                self.apns_ids_accepted.add(resp_id)
                stats["distinct_accepted_apns_ids"] += 1
        else:
            key = str(status)
            stats["rejected_by_status"][key] = stats["rejected_by_status"].get(key, 0) + 1
            stats["rejected_by_reason"][reason] = stats["rejected_by_reason"].get(reason, 0) + 1

    def _apns_decide(self, ctx, headers, dups, token, body, body_size, now, rec):
        """Validate one request as APNs does.  Returns (status, reason, detail, extra)."""
        if headers.get(":method") != "POST":
            return 405, "MethodNotAllowed", None, None
        if token is None or "/" in token:
            return 404, "BadPath", None, None
        if token == "":
            return 400, "MissingDeviceToken", None, None
        dup_apns = sorted(d for d in dups if d.startswith("apns-") or d == "authorization")
        if dup_apns:
            return 400, "DuplicateHeaders", ", ".join(dup_apns), None
        req_id = headers.get("apns-id")
        if req_id is not None and not UUID_RE.match(req_id):
            return 400, "BadMessageId", None, None

        failure = self._apns_auth(ctx, headers.get("authorization"), now, rec)
        if failure is not None:
            return failure[0], failure[1], failure[2], None
        if not ctx.authenticated:
            ctx.authenticated = True
            if ctx.on_first_auth is not None:
                ctx.on_first_auth()

        topic = headers.get("apns-topic")
        if topic is None or topic == "":
            return 400, "MissingTopic", None, None
        push_type = headers.get("apns-push-type")
        if push_type not in APNS_PUSH_TYPE_TOPIC_SUFFIX:
            return 400, "InvalidPushType", None if push_type else "apns-push-type is required", None
        suffix = APNS_PUSH_TYPE_TOPIC_SUFFIX[push_type]
        allowed = rec.get("topics_allowed") or []
        if suffix is None:
            topic_ok = topic in allowed
        else:
            topic_ok = any(topic == base + suffix for base in allowed)
        if not topic_ok:
            want = " or ".join(base + (suffix or "") for base in allowed)
            return 400, "TopicDisallowed", f"{push_type} pushes with this key must use topic {want}", None

        priority = headers.get("apns-priority")
        if priority is not None and priority not in ("10", "5", "1"):
            return 400, "BadPriority", None, None
        if push_type == "background" and priority != "5":
            return 400, "BadPriority", "background pushes must use apns-priority 5 (omitted means 10)", None
        expiration = headers.get("apns-expiration")
        if expiration is not None and not DIGITS_RE.match(expiration):
            return 400, "BadExpirationDate", None, None
        collapse = headers.get("apns-collapse-id")
        if collapse is not None and len(collapse.encode("utf-8")) > APNS_MAX_COLLAPSE_ID:
            return 400, "BadCollapseId", None, None
        if len(token) < 64 or len(token) % 2 or not HEX_RE.match(token):
            return 400, "BadDeviceToken", None, None
        issued = self.apns_token_environments.get(token.lower())
        if issued is not None and issued != ctx.environment:
            return 400, "BadDeviceToken", f"a {issued} token sent to the {ctx.environment} host", None

        limit = APNS_MAX_PAYLOAD_VOIP if push_type == "voip" else APNS_MAX_PAYLOAD
        if body_size > limit:
            return 413, "PayloadTooLarge", None, None
        if body_size == 0:
            return 400, "PayloadEmpty", None, None
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            rec["payload_raw"] = body.decode("latin-1")
            return 400, "PayloadEmpty", "payload is not UTF-8 JSON", None
        try:
            payload = json.loads(text)
        except ValueError:
            rec["payload_raw"] = text
            return 400, "PayloadEmpty", "payload is not valid JSON", None
        rec["payload"] = payload
        if not isinstance(payload, dict):
            return 400, "PayloadEmpty", "payload must be a JSON object", None
        aps = payload.get("aps")
        if isinstance(aps, dict):
            rec["content_available"] = aps.get("content-available")
        strict = self.apns_config["strict_payload"]
        if strict and push_type != "mdm" and not isinstance(aps, dict):
            return 400, "PayloadEmpty", "payload has no \"aps\" dictionary", None
        if strict and push_type == "background" and (not isinstance(aps, dict) or aps.get("content-available") != 1):
            return 400, "PayloadEmpty", "background pushes need aps.content-available = 1", None
        return 200, None, None, None

    # ---- FCM / OAuth -----------------------------------------------------

    def handle_fcm(self, ctx: ConnCtx, stream_id, raw_headers, body: bytes, body_size: int) -> Resp:
        headers, _ = decode_headers(raw_headers)
        path = (headers.get(":path") or "").split("?", 1)[0]
        if path == "/token":
            return self._handle_token(ctx, stream_id, headers, body)
        with self.lock:
            now = self.now()
            ctx.requests += 1
            rec = {
                "index": len(self.fcm_requests), "time": now, "connection_id": ctx.conn_id,
                "stream_id": stream_id, "http_version": ctx.http_version, "method": headers.get(":method"),
                "path": headers.get(":path"), "project_id": None, "token": None, "headers": headers,
                "body": None, "body_raw": None, "validate_only": False, "status": None, "error": None,
                "error_code": None, "name": None, "client_email": None, "delay_ms": 0, "reset": False,
            }
            self.fcm_requests.append(rec)
            self.fcm_stats["requests"] += 1
            try:
                text = body.decode("utf-8")
                parsed = json.loads(text) if text.strip() else None
                rec["body"] = parsed
            except ValueError:
                parsed = None
                rec["body_raw"] = body.decode("utf-8", "replace")
            message = parsed.get("message") if isinstance(parsed, dict) else None
            token = message.get("token") if isinstance(message, dict) else None
            rec["token"] = token if isinstance(token, str) else None

            reset_rule = self.fcm_rules.take("reset", rec["token"])
            if reset_rule is not None:
                rec["reset"] = True
                self.fcm_stats["resets"] += 1
                return Resp(reset_code=reset_rule["error_code"])

            status, payload, extra_headers, delay = self._fcm_decide(headers, path, body, parsed, now, rec)
            rec["status"] = status
            rec["delay_ms"] = int(delay * 1000)
            stats = self.fcm_stats
            if delay:
                stats["delayed"] += 1
            if status == 200:
                stats["accepted"] += 1
                rec["name"] = payload["name"]
                if rec["validate_only"]:
                    stats["validate_only"] += 1
                else:
                    canon = json.dumps(parsed, sort_keys=True)
                    if canon in self.fcm_bodies_accepted:
                        stats["duplicate_messages"] += 1
                    else:
                        self.fcm_bodies_accepted.add(canon)
            else:
                err = payload.get("error", {})
                details = err.get("details") or []
                code = next((d.get("errorCode") for d in details if d.get("@type") == FCM_ERROR_TYPE), None)
                rec["error"] = {"status": err.get("status"), "message": err.get("message")}
                rec["error_code"] = code
                key = str(status)
                stats["rejected_by_status"][key] = stats["rejected_by_status"].get(key, 0) + 1
                ekey = code or err.get("status") or "UNKNOWN"
                stats["rejected_by_error"][ekey] = stats["rejected_by_error"].get(ekey, 0) + 1
            resp_headers = [("content-type", "application/json; charset=UTF-8")] + extra_headers
            return Resp(status, resp_headers, json_bytes(payload), delay)

    def _fcm_auth(self, headers, project_id, now, rec):
        auth = headers.get("authorization")
        challenge = 'Bearer realm="https://accounts.google.com/"'
        if not auth or not auth.strip():
            return 401, google_error(401, "UNAUTHENTICATED",
                                     "Request is missing required authentication credential. Expected OAuth 2 access "
                                     "token, login cookie or other valid authentication credential. " + GOOGLE_DEVCONSOLE,
                                     [error_info("CREDENTIALS_MISSING")]), [("www-authenticate", challenge)]
        scheme, _, token = auth.strip().partition(" ")
        info = self.access_tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        invalid_msg = ("Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
                       "or other valid authentication credential. " + GOOGLE_DEVCONSOLE)
        if info is None:
            return 401, google_error(401, "UNAUTHENTICATED", invalid_msg,
                                     [error_info("ACCESS_TOKEN_TYPE_UNSUPPORTED")]), \
                [("www-authenticate", challenge + ', error="invalid_token"')]
        rec["client_email"] = info["client_email"]
        if info["expiry"] <= now:
            return 401, google_error(401, "UNAUTHENTICATED", invalid_msg, [error_info("ACCESS_TOKEN_EXPIRED")]), \
                [("www-authenticate", challenge + ', error="invalid_token"')]
        if not any(s in info["scopes"] for s in FCM_SCOPES_OK):
            return 403, google_error(403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.",
                                     [error_info("ACCESS_TOKEN_SCOPE_INSUFFICIENT")]), \
                [("www-authenticate", challenge + ', error="insufficient_scope"')]
        if info["project_id"] != project_id:
            return 403, google_error(403, "PERMISSION_DENIED",
                                     f"Permission 'cloudmessaging.messages.create' denied on resource "
                                     f"'//cloudresourcemanager.googleapis.com/projects/{project_id}' "
                                     f"(or it may not exist).", [error_info("IAM_PERMISSION_DENIED")]), []
        return None

    def _fcm_decide(self, headers, path, body, parsed, now, rec):
        m = FCM_SEND_RE.match(unquote(path))
        if m is None:
            return 404, google_error(404, "NOT_FOUND", "Requested entity was not found."), [], 0.0
        project_id = m.group(1)
        rec["project_id"] = project_id
        if headers.get(":method") != "POST":
            return 405, google_error(405, "METHOD_NOT_ALLOWED", "Method Not Allowed"), [], 0.0
        failure = self._fcm_auth(headers, project_id, now, rec)
        if failure is not None:
            return failure[0], failure[1], failure[2], 0.0
        if rec["body_raw"] is not None or parsed is None:
            msg = "Invalid JSON payload received. Unexpected token."
            return 400, FcmInvalid(msg).body(), [], 0.0
        try:
            validate_only = validate_fcm_request(parsed)
        except FcmInvalid as exc:
            return 400, exc.body(), [], 0.0
        rec["validate_only"] = validate_only
        rule = self.fcm_rules.take("fail", rec["token"])
        if rule is not None:
            extra = []
            if rule.get("retry_after") is not None:
                extra.append(("retry-after", fmt_retry_after(rule["retry_after"])))
            details = [fcm_error_detail(rule["error"])]
            return rule["status"], google_error(rule["status"], rule["grpc_status"], rule["message"], details), \
                extra, rule["delay"]
        delay = 0.0
        drule = self.fcm_rules.take("delay", rec["token"])
        if drule is not None:
            delay = drule["delay"]
        if validate_only:
            name = f"projects/{project_id}/messages/fake_message_id"
        else:
            name = f"projects/{project_id}/messages/0:{int(now * 1000)}%{secrets.token_hex(8)}"
        return 200, {"name": name}, [], delay

    def _handle_token(self, ctx: ConnCtx, stream_id, headers, body: bytes) -> Resp:
        with self.lock:
            now = self.now()
            rec = {"index": len(self.fcm_token_requests), "time": now, "connection_id": ctx.conn_id,
                   "stream_id": stream_id, "http_version": ctx.http_version, "method": headers.get(":method"),
                   "headers": headers, "form": None, "header": None, "claims": None, "status": None,
                   "error": None, "error_description": None, "access_token": None, "expires_in": None}
            self.fcm_token_requests.append(rec)
            self.fcm_stats["token_requests"] += 1
            status, payload = self._token_decide(headers, body, now, rec)
            rec["status"] = status
            if status == 200:
                self.fcm_stats["tokens_issued"] += 1
                rec["access_token"], rec["expires_in"] = payload["access_token"], payload["expires_in"]
            else:
                self.fcm_stats["token_requests_rejected"] += 1
                rec["error"], rec["error_description"] = payload.get("error"), payload.get("error_description")
            return Resp(status, [("content-type", "application/json; charset=utf-8"),
                                 ("cache-control", "no-cache, no-store, max-age=0, must-revalidate"),
                                 ("pragma", "no-cache")], json_bytes(payload))

    def _token_decide(self, headers, body, now, rec):
        def grant_error(desc, error="invalid_grant"):
            return 400, {"error": error, "error_description": desc}

        if headers.get(":method") != "POST":
            return 405, {"error": "invalid_request", "error_description": "Method Not Allowed"}
        try:
            form = {k: v[0] for k, v in parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
        except (UnicodeDecodeError, ValueError):
            form = {}
        rec["form"] = form
        grant = form.get("grant_type")
        if not grant:
            return grant_error("Missing required parameter: grant_type", "invalid_request")
        if grant != JWT_BEARER_GRANT:
            return grant_error(f"Invalid grant_type: {grant}", "unsupported_grant_type")
        assertion = form.get("assertion")
        if not assertion:
            return grant_error("Missing required parameter: assertion", "invalid_request")
        try:
            header, claims, sig, signing_input = parse_jwt(assertion)
        except Exception:  # noqa: BLE001
            return grant_error("Invalid JWT: the assertion is not a signed JWT.")
        rec["header"], rec["claims"] = header, claims
        iss = claims.get("iss")
        account = self.fcm_accounts.get(iss) if isinstance(iss, str) else None
        if account is None:
            return grant_error("Invalid grant: account not found")
        if header.get("alg") != "RS256":
            return grant_error("Invalid JWT Signature.")
        kid = header.get("kid")
        if kid is not None and account["private_key_id"] is not None and kid != account["private_key_id"]:
            return grant_error("Invalid JWT Signature.")
        try:
            account["public_key"].verify(sig, signing_input, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return grant_error("Invalid JWT Signature.")
        if claims.get("aud") != self.token_uri:
            return grant_error(f"Invalid JWT: Failed audience check. The right audience is {self.token_uri}")
        iat, exp = claims.get("iat"), claims.get("exp")
        if (not is_number(iat) or not is_number(exp) or exp <= iat or exp - iat > FCM_MAX_ASSERTION_LIFETIME
                or exp <= now or iat > now + FCM_ASSERTION_SKEW):
            return grant_error("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable "
                               "timeframe. Check your iat and exp values in the JWT claim.")
        scope = claims.get("scope")
        if not isinstance(scope, str) or not scope.strip():
            return grant_error("Invalid OAuth scope or ID token audience provided.", "invalid_scope")
        expires_in = int(self.fcm_config["token_expires_in"])
        access_token = "ya29.c." + secrets.token_urlsafe(64)
        self.access_tokens[access_token] = {"client_email": iss, "project_id": account["project_id"],
                                            "expiry": now + expires_in, "scopes": scope.split(),
                                            "issued_at": now}
        return 200, {"access_token": access_token, "expires_in": expires_in, "token_type": "Bearer"}


# --------------------------------------------------------------------------
# FCM v1 request validation (proto3 JSON as Google's front end parses it)
# --------------------------------------------------------------------------

def _string_map(value, path: str):
    if not isinstance(value, dict):
        raise FcmInvalid(f"Invalid value at '{path}' (type.googleapis.com/google.protobuf.Struct), "
                         f"{json_repr(value)}", path)
    for i, (key, item) in enumerate(value.items()):
        if isinstance(item, str):
            continue
        field = f"{path}[{i}].value"
        if isinstance(item, list):
            msg = (f"Invalid JSON payload received. Unknown name \"{key}\" at '{path}': "
                   f"Proto field is not repeating, cannot start list.")
            raise FcmInvalid(msg, field)
        msg = f"Invalid value at '{field}' (TYPE_STRING), {json_repr(item)}"
        raise FcmInvalid(msg, field)


def _unknown_fields(obj: dict, allowed, path: str | None):
    for key in obj:
        if key not in allowed:
            where = f" at '{path}'" if path else ""
            raise FcmInvalid(f"Invalid JSON payload received. Unknown name \"{key}\"{where}: Cannot find field.",
                             path)


def _expect_object(value, path: str, type_name: str):
    if not isinstance(value, dict):
        raise FcmInvalid(f"Invalid value at '{path}' ({type_name}), {json_repr(value)}", path)


def validate_fcm_request(req) -> bool:
    """Raise FcmInvalid for what FCM v1 rejects; return validate_only."""
    if not isinstance(req, dict):
        raise FcmInvalid("Invalid JSON payload received. Root element must be a message.")
    _unknown_fields(req, FCM_REQUEST_FIELDS, None)
    validate_only = req.get("validate_only", req.get("validateOnly", False))
    if not isinstance(validate_only, bool):
        raise FcmInvalid(f"Invalid value at 'validate_only' (TYPE_BOOL), {json_repr(validate_only)}", "validate_only")
    msg = req.get("message")
    if msg is None:
        raise FcmInvalid("Request contains an invalid argument.", "message")
    _expect_object(msg, "message", "type.googleapis.com/google.firebase.fcm.v1.Message")
    _unknown_fields(msg, FCM_MESSAGE_FIELDS, "message")

    targets = [name for name in ("token", "topic", "condition") if msg.get(name) is not None]
    for name in targets:
        if not isinstance(msg[name], str):
            raise FcmInvalid(f"Invalid value at 'message.{name}' (TYPE_STRING), {json_repr(msg[name])}",
                             f"message.{name}")
    if len(targets) > 1:
        raise FcmInvalid(f"Invalid value at 'message' (oneof), oneof field 'target' is already set. "
                         f"Cannot set '{targets[1]}'", "message")
    if not targets:
        raise FcmInvalid("Recipient of the message is not set.", "message")
    if "token" in targets and not FCM_TOKEN_RE.match(msg["token"]):
        raise FcmInvalid(FCM_ERRORS["INVALID_ARGUMENT"][2], "message.token", fcm_code="INVALID_ARGUMENT")

    if msg.get("data") is not None:
        _string_map(msg["data"], "message.data")
        for key in msg["data"]:
            if key in FCM_RESERVED_DATA_KEYS or key.startswith(FCM_RESERVED_DATA_PREFIXES):
                raise FcmInvalid(f"Invalid data payload key: {key}", "message.data")

    notification = msg.get("notification")
    if notification is not None:
        _expect_object(notification, "message.notification", "type.googleapis.com/google.firebase.fcm.v1.Notification")
        _unknown_fields(notification, FCM_NOTIFICATION_FIELDS, "message.notification")
        for name in FCM_NOTIFICATION_FIELDS:
            value = notification.get(name)
            if value is not None and not isinstance(value, str):
                field = f"message.notification.{name}"
                raise FcmInvalid(f"Invalid value at '{field}' (TYPE_STRING), {json_repr(value)}", field)

    android = msg.get("android")
    if android is not None:
        _expect_object(android, "message.android", "type.googleapis.com/google.firebase.fcm.v1.AndroidConfig")
        prio = android.get("priority")
        if prio is not None and prio not in FCM_ANDROID_PRIORITIES:
            raise FcmInvalid("Invalid value at 'message.android.priority' "
                             f"(type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), {json_repr(prio)}",
                             "message.android.priority")
        ttl = android.get("ttl")
        if ttl is not None and (not isinstance(ttl, str) or not DURATION_RE.match(ttl)):
            raise FcmInvalid("Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), "
                             f"{json_repr(ttl)}", "message.android.ttl")
        if android.get("data") is not None:
            _string_map(android["data"], "message.android.data")
        if android.get("notification") is not None:
            _expect_object(android["notification"], "message.android.notification",
                           "type.googleapis.com/google.firebase.fcm.v1.AndroidNotification")

    apns = msg.get("apns")
    if apns is not None:
        _expect_object(apns, "message.apns", "type.googleapis.com/google.firebase.fcm.v1.ApnsConfig")
        if apns.get("headers") is not None:
            _string_map(apns["headers"], "message.apns.headers")
        if apns.get("payload") is not None:
            _expect_object(apns["payload"], "message.apns.payload", "type.googleapis.com/google.protobuf.Struct")

    webpush = msg.get("webpush")
    if webpush is not None:
        _expect_object(webpush, "message.webpush", "type.googleapis.com/google.firebase.fcm.v1.WebpushConfig")
        for sub in ("headers", "data"):
            if webpush.get(sub) is not None:
                _string_map(webpush[sub], f"message.webpush.{sub}")
    return validate_only


# --------------------------------------------------------------------------
# Network: HTTP/2 (h2) and HTTP/1.1 on the TLS ports
# --------------------------------------------------------------------------

class Service:
    def __init__(self, name: str, store: Store, allow_http1: bool, environment=None):
        self.name = name
        self.store = store
        self.allow_http1 = allow_http1
        self.environment = environment  # APNs: which of Apple's hosts this port plays
        self.handle = store.handle_apns if name == "apns" else store.handle_fcm
        self.protocols = set()


class ServiceProtocol(asyncio.Protocol):
    """Accepts a TLS connection and hands it to an h2 or HTTP/1.1 engine."""

    def __init__(self, service: Service):
        self.service = service
        self.engine = None
        self.sniff = b""
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.service.protocols.add(self)
        self.service.store.note_open(self.service.name, len(self.service.protocols))
        sslobj = transport.get_extra_info("ssl_object")
        alpn = sslobj.selected_alpn_protocol() if sslobj is not None else None
        if alpn == "h2":
            self.engine = H2Engine(self)
        elif alpn == "http/1.1" and self.service.allow_http1:
            self.engine = Http1Engine(self)
        elif alpn is not None:
            transport.close()

    def data_received(self, data):
        if self.engine is None:
            self.sniff += data
            if self.sniff[:len(H2_PREFACE)] == H2_PREFACE[:len(self.sniff)]:
                if len(self.sniff) < len(H2_PREFACE):
                    return
                self.engine = H2Engine(self)
            elif self.service.allow_http1:
                self.engine = Http1Engine(self)
            else:
                self.transport.close()
                return
            data, self.sniff = self.sniff, b""
        self.engine.data_received(data)

    def connection_lost(self, exc):
        self.service.protocols.discard(self)
        if self.engine is not None:
            self.engine.connection_lost()

    def close(self):
        if self.transport is not None:
            self.transport.close()


class StreamState:
    __slots__ = ("headers", "body", "size")

    def __init__(self, headers):
        self.headers = headers
        self.body = bytearray()
        self.size = 0


class H2Engine:
    def __init__(self, proto: ServiceProtocol):
        self.proto = proto
        self.transport = proto.transport
        self.service = proto.service
        self.store = proto.service.store
        self.loop = asyncio.get_running_loop()
        self.ctx = self.store.new_conn(self.service.name, "2", self.service.environment)
        cfg = self.store.config_for(self.service.name)
        config = h2.config.H2Configuration(client_side=False, header_encoding=None,
                                           validate_outbound_headers=False, normalize_outbound_headers=False)
        self.conn = h2.connection.H2Connection(config=config)
        self.max_streams = int(cfg["max_concurrent_streams"])
        initial_streams = self.max_streams
        self.raise_after = None   # answers after which the stream limit rises to max_streams
        if self.service.name == "apns" and cfg.get("initial_single_stream"):
            # Apple: "APNs allows only one stream until you post a request with a valid authentication token."
            initial_streams = 1
            self.ctx.on_first_auth = self._raise_stream_limit
        elif self.service.name == "apns" and cfg.get("initial_max_concurrent_streams"):
            initial_streams = min(int(cfg["initial_max_concurrent_streams"]), self.max_streams)
            self.raise_after = int(cfg["raise_streams_after"])
        self.stream_limit_raised = initial_streams == self.max_streams
        self.conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: initial_streams,
            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 65536,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20,
        })
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window((1 << 24))
        self.answered = 0
        self.stalled = False      # a stall rule fired: nothing more is sent, input is dropped
        self.drain_last = None    # last_stream_id of a draining GOAWAY sent
        self.streams = {}
        self.pending = {}   # stream id -> bytes still to send (flow control)
        self.delayed = {}   # stream id -> Resp held back by a delay rule
        self.last_done = 0
        self.local_max_seen = 0
        self.closed = False
        self.flush()

    def _raise_stream_limit(self):
        if self.stream_limit_raised:
            return
        self.stream_limit_raised = True
        self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams})

    def flush(self):
        if self.stalled:
            return
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        if self.closed:
            return
        if self.stalled:
            # Read and parse (to count the PINGs left unanswered), never answer.
            try:
                events = self.conn.receive_data(data)
            except h2.exceptions.ProtocolError:
                return
            for event in events:
                if isinstance(event, h2.events.PingReceived):
                    self.store.note_ignored_ping(self.service.name)
            return
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            log.warning("%s: HTTP/2 protocol error on connection %s: %s", self.service.name, self.ctx.conn_id, exc)
            self.flush()
            self.closed = True
            self.transport.close()
            return
        ready = []
        for event in events:
            kind = type(event)
            if kind is h2.events.RequestReceived:
                if self.drain_last is not None and event.stream_id > self.drain_last:
                    continue   # after our GOAWAY: never processed
                self.streams[event.stream_id] = StreamState(event.headers)
                early = self.store.early_answer(self.service.name, self.ctx, event.stream_id, event.headers)
                if early is not None:
                    self.answer_early(event.stream_id, early)
            elif kind is h2.events.DataReceived:
                state = self.streams.get(event.stream_id)
                if state is not None:
                    state.size += len(event.data)
                    if len(state.body) < MAX_BODY_KEEP:
                        state.body += event.data
                try:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                    pass
            elif kind is h2.events.StreamEnded:
                if event.stream_id in self.streams:
                    ready.append(event.stream_id)
            elif kind is h2.events.StreamReset:
                self.streams.pop(event.stream_id, None)
                self.pending.pop(event.stream_id, None)
                self.delayed.pop(event.stream_id, None)
            elif kind is h2.events.WindowUpdated:
                self.resume_pending()
            elif kind is h2.events.ConnectionTerminated:
                self.closed = True
                self.flush()
                self.transport.close()
                return
            if self.closed:
                return
        if len(self.streams) > self.local_max_seen:
            # Streams the client had open at once (all requests of this read are counted before answering).
            self.local_max_seen = len(self.streams)
            self.store.note_streams(self.service.name, self.local_max_seen)
        for stream_id in ready:
            if self.closed:
                return
            if self.drain_last is not None and stream_id > self.drain_last:
                continue
            if stream_id in self.streams:
                self.dispatch(stream_id)
        self.flush()

    def dispatch(self, stream_id):
        state = self.streams[stream_id]
        try:
            resp = self.service.handle(self.ctx, stream_id, state.headers, bytes(state.body), state.size)
        except Exception:  # noqa: BLE001 - a stand-in bug must not kill the connection
            log.exception("%s: handler failed", self.service.name)
            resp = Resp(500, [("content-type", "application/json")], json_bytes({"reason": "InternalServerError"}))
        if resp.reset_code is not None:
            self.streams.pop(stream_id, None)
            try:
                self.conn.reset_stream(stream_id, resp.reset_code)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                pass
        elif resp.delay > 0:
            self.delayed[stream_id] = resp
            self.loop.call_later(resp.delay, self.deferred_send, stream_id, resp)
        else:
            self.send_response(stream_id, resp)
        if self.drain_last is not None:
            return
        rule = self.store.goaway_rule(self.service.name, self.ctx)
        if rule is not None:
            if rule.get("drain"):
                self.goaway_drain(rule, stream_id)
            else:
                self.goaway(rule)
            return
        if self.store.stall_rule(self.service.name, self.ctx) is not None:
            self.flush()   # what was decided so far still goes out; then nothing more
            self.stalled = True

    def deferred_send(self, stream_id, resp):
        if self.delayed.pop(stream_id, None) is None or self.closed or stream_id not in self.streams:
            return
        self.send_response(stream_id, resp)
        self.flush()

    def answer_early(self, stream_id, resp: Resp):
        """200 on the headers alone, then RST_STREAM(NO_ERROR): a complete response while the client may still be
        sending its body. If the whole request already arrived (h2 then has the stream closed once answered), the
        RST_STREAM frame is written by hand: on the wire it is the same frame."""
        self.streams.pop(stream_id, None)
        try:
            self.conn.send_headers(stream_id, [(":status", str(resp.status))] + resp.headers, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            return
        self.finish(stream_id)
        try:
            self.conn.reset_stream(stream_id, ErrorCodes.NO_ERROR)
            by_hand = False
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            by_hand = True
        self.flush()
        if by_hand and not self.stalled and not self.transport.is_closing():
            frame = hyperframe.frame.RstStreamFrame(stream_id)
            frame.error_code = 0
            self.transport.write(frame.serialize())

    def send_response(self, stream_id, resp: Resp):
        headers = [(":status", str(resp.status))] + resp.headers
        if resp.body:
            headers.append(("content-length", str(len(resp.body))))
        try:
            self.conn.send_headers(stream_id, headers, end_stream=not resp.body)
            if resp.body:
                self.send_body(stream_id, resp.body)
            else:
                self.finish(stream_id)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self.streams.pop(stream_id, None)

    def send_body(self, stream_id, data: bytes):
        while data:
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.pending[stream_id] = data
                return
            chunk, data = data[:window], data[window:]
            self.conn.send_data(stream_id, chunk, end_stream=not data)
        self.pending.pop(stream_id, None)
        self.finish(stream_id)

    def resume_pending(self):
        for stream_id, data in list(self.pending.items()):
            try:
                self.send_body(stream_id, data)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                self.pending.pop(stream_id, None)
                self.streams.pop(stream_id, None)

    def finish(self, stream_id):
        self.streams.pop(stream_id, None)
        if stream_id > self.last_done:
            self.last_done = stream_id
        self.answered += 1
        if self.raise_after is not None and self.answered >= self.raise_after:
            self._raise_stream_limit()
        if self.drain_last is not None:
            self.close_if_drained()

    def goaway_drain(self, rule, last_stream_id):
        """GOAWAY whose last_stream_id is this request's: streams up to it are still answered (delayed ones on their
        own time), later ones never; the connection closes once the last of the former is answered. Written by
        hand, so that h2 still lets us answer the streams it keeps."""
        self.drain_last = last_stream_id
        self.flush()
        frame = hyperframe.frame.GoAwayFrame(0)
        frame.last_stream_id = last_stream_id
        frame.error_code = rule["error_code"]
        frame.additional_data = rule["debug_data"] or b""
        if not self.transport.is_closing():
            self.transport.write(frame.serialize())
        for stream_id in [s for s in self.streams if s > last_stream_id]:
            self.streams.pop(stream_id, None)
            self.delayed.pop(stream_id, None)
            self.pending.pop(stream_id, None)
        self.close_if_drained()

    def close_if_drained(self):
        if self.closed or self.streams or self.delayed or self.pending:
            return
        self.flush()
        self.closed = True
        self.loop.call_later(0.25, self.transport.close)

    def goaway(self, rule):
        # Requests already decided (answers held back by a delay rule) are answered now: the
        # stand-in has accounted them, and a server completes what it accepted before GOAWAY.
        for stream_id, resp in sorted(self.delayed.items()):
            if stream_id in self.streams:
                self.send_response(stream_id, resp)
        self.delayed.clear()
        for stream_id in list(self.streams):
            try:
                self.conn.reset_stream(stream_id, ErrorCodes.REFUSED_STREAM)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                pass
        self.streams.clear()
        self.pending.clear()
        try:
            self.conn.close_connection(error_code=rule["error_code"], additional_data=rule["debug_data"] or None,
                                       last_stream_id=self.last_done)
        except h2.exceptions.ProtocolError:
            pass
        self.flush()
        self.closed = True
        # Keep reading (and dropping) for a moment so in-flight client data does not turn into a TCP RST.
        self.loop.call_later(0.25, self.transport.close)

    def connection_lost(self):
        self.closed = True


HTTP_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
                405: "Method Not Allowed", 410: "Gone", 413: "Payload Too Large", 429: "Too Many Requests",
                500: "Internal Server Error", 503: "Service Unavailable"}


class Http1Engine:
    """Minimal HTTP/1.1 (keep-alive, Content-Length or chunked) for the FCM/OAuth port."""

    def __init__(self, proto: ServiceProtocol):
        self.proto = proto
        self.transport = proto.transport
        self.service = proto.service
        self.loop = asyncio.get_running_loop()
        self.ctx = self.service.store.new_conn(self.service.name, "1.1", self.service.environment)
        self.buf = bytearray()
        self.busy = False
        self.closed = False

    def data_received(self, data):
        self.buf += data
        self.process()

    def process(self):
        while not self.busy and not self.closed:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > 65536:
                    self.close()
                return
            head = self.buf[:end].decode("latin-1").split("\r\n")
            try:
                method, target, version = head[0].split(" ", 2)
            except ValueError:
                self.write_simple(400, b"")
                self.close()
                return
            raw = [(b":method", method.encode()), (b":path", target.encode("latin-1"))]
            fields = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip()
                fields[name] = value
                if name == "host":
                    raw.append((b":authority", value.encode("latin-1")))
                else:
                    raw.append((name.encode("latin-1"), value.encode("latin-1")))
            pos = end + 4
            if "chunked" in fields.get("transfer-encoding", "").lower():
                body = bytearray()
                while True:
                    nl = self.buf.find(b"\r\n", pos)
                    if nl < 0:
                        return
                    try:
                        size = int(self.buf[pos:nl].split(b";")[0], 16)
                    except ValueError:
                        self.close()
                        return
                    if size == 0:
                        if self.buf[nl + 2:nl + 4] == b"\r\n":
                            pos = nl + 4
                        else:
                            trailer_end = self.buf.find(b"\r\n\r\n", nl + 2)
                            if trailer_end < 0:
                                return
                            pos = trailer_end + 4
                        break
                    if len(self.buf) < nl + 2 + size + 2:
                        return
                    body += self.buf[nl + 2:nl + 2 + size]
                    pos = nl + 2 + size + 2
                body = bytes(body)
            else:
                try:
                    length = int(fields.get("content-length", "0"))
                except ValueError:
                    self.close()
                    return
                if len(self.buf) < pos + length:
                    return
                body = bytes(self.buf[pos:pos + length])
                pos += length
            del self.buf[:pos]
            keep_alive = fields.get("connection", "").lower() != "close" and version == "HTTP/1.1"
            try:
                resp = self.service.handle(self.ctx, None, raw, body, len(body))
            except Exception:  # noqa: BLE001
                log.exception("%s: handler failed", self.service.name)
                resp = Resp(500, [("content-type", "application/json")], b"{}")
            if resp.reset_code is not None:
                self.close()
                return
            if resp.delay > 0:
                self.busy = True
                self.loop.call_later(resp.delay, self.deferred, resp, keep_alive)
                return
            self.write(resp, keep_alive)

    def deferred(self, resp, keep_alive):
        self.busy = False
        if self.closed:
            return
        self.write(resp, keep_alive)
        self.process()

    def write(self, resp: Resp, keep_alive: bool):
        lines = [f"HTTP/1.1 {resp.status} {HTTP_REASONS.get(resp.status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in resp.headers]
        lines.append(f"content-length: {len(resp.body)}")
        lines.append("connection: keep-alive" if keep_alive else "connection: close")
        self.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + resp.body)
        if not keep_alive:
            self.close()

    def write_simple(self, status, body):
        self.write(Resp(status, [], body), False)

    def close(self):
        self.closed = True
        self.transport.close()

    def connection_lost(self):
        self.closed = True


# --------------------------------------------------------------------------
# Control API (plain HTTP/1.1, threaded)
# --------------------------------------------------------------------------

def make_control_handler(store: Store):
    class ControlHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "HeraldStandin/1"

        def log_message(self, fmt, *args):  # keep stderr quiet
            pass

        def _send(self, status: int, obj):
            data = json_bytes(obj)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw.strip():
                return {}
            try:
                return json.loads(raw)
            except ValueError:
                raise StandinError("body is not JSON") from None

        def _route(self, method: str):
            url = urlsplit(self.path)
            path = url.path.rstrip("/") or "/"
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                result = self._dispatch(method, path, query)
            except StandinError as exc:
                self._send(400, {"error": str(exc)})
                return
            except Exception as exc:  # noqa: BLE001
                log.exception("control %s %s failed", method, path)
                self._send(500, {"error": str(exc)})
                return
            if result is None:
                self._send(404, {"error": f"no route {method} {path}"})
            else:
                self._send(200, result)

        def _records(self, records, query):
            since = query.get("since", "0")
            if not since.isdigit():
                raise StandinError("since must be a non-negative integer")
            with store.lock:
                out = records[int(since):]
                token = query.get("token")
                if token is not None:
                    out = [r for r in out if r.get("token") == token]
                return json.loads(json.dumps(out, default=str))

        def _dispatch(self, method, path, query):
            s = store
            if method == "GET":
                if path in ("/", "/health"):
                    return {"ok": True}
                if path == "/stats":
                    return s.stats()
                if path == "/apns/requests":
                    return self._records(s.apns_requests, query)
                if path == "/fcm/requests":
                    return self._records(s.fcm_requests, query)
                if path == "/fcm/token_requests":
                    return self._records(s.fcm_token_requests, query)
                if path == "/apns/rules":
                    with s.lock:
                        return json.loads(json.dumps(s.apns_rules.public(), default=str))
                if path == "/fcm/rules":
                    with s.lock:
                        return json.loads(json.dumps(s.fcm_rules.public(), default=str))
                if path == "/apns/config":
                    with s.lock:
                        return dict(s.apns_config)
                if path == "/fcm/config":
                    with s.lock:
                        return dict(s.fcm_config)
                if path == "/clock":
                    with s.lock:
                        return {"offset_seconds": s.clock_offset, "now": s.now()}
                if path == "/apns/tokens":
                    with s.lock:
                        return dict(s.apns_token_environments)
                if path == "/apns/keys":
                    with s.lock:
                        return [{"key_id": k["key_id"], "team_id": k["team_id"], "topics": k["topics"]}
                                for k in s.apns_keys.values()]
                if path == "/fcm/accounts":
                    with s.lock:
                        return [{"client_email": a["client_email"], "project_id": a["project_id"],
                                 "private_key_id": a["private_key_id"]} for a in s.fcm_accounts.values()]
                return None
            if method == "POST":
                body = self._body()
                if path == "/apns/keys":
                    return s.add_apns_key(body)
                if path == "/apns/tokens":
                    return s.add_apns_tokens(body)
                if path == "/fcm/accounts":
                    return s.add_fcm_account(body)
                if path in ("/apns/rules", "/fcm/rules"):
                    service = path.split("/")[1]
                    rule = normalize_rule(body, service)
                    with s.lock:
                        added = s.rules_for(service).add(rule)
                        return {"id": added["id"], "kind": added["kind"]}
                if path == "/reset":
                    s.reset()
                    return {"ok": True}
                if path == "/clock":
                    offset = body.get("offset_seconds") if isinstance(body, dict) else None
                    if not is_number(offset):
                        raise StandinError("offset_seconds must be a number")
                    with s.lock:
                        s.clock_offset = float(offset)
                        return {"offset_seconds": s.clock_offset, "now": s.now()}
                if path == "/apns/config":
                    return s.set_apns_config(body)
                if path == "/fcm/config":
                    return s.set_fcm_config(body)
                if path == "/fcm/expire_tokens":
                    return s.expire_fcm_tokens()
                return None
            if method == "DELETE":
                if path == "/apns/tokens":
                    with s.lock:
                        s.apns_token_environments.clear()
                    return {"ok": True}
                if path in ("/apns/rules", "/fcm/rules"):
                    with s.lock:
                        s.rules_for(path.split("/")[1]).clear()
                    return {"ok": True}
                m = re.match(r"^/(apns|fcm)/rules/(\d+)$", path)
                if m:
                    with s.lock:
                        rules = s.rules_for(m.group(1))
                        before = len(rules.items)
                        rules.items = [r for r in rules.items if r["id"] != int(m.group(2))]
                        return {"deleted": before - len(rules.items)}
                return None
            return None

        def do_GET(self):
            self._route("GET")

        def do_POST(self):
            self._route("POST")

        def do_DELETE(self):
            self._route("DELETE")

    return ControlHandler


# --------------------------------------------------------------------------
# Certificates
# --------------------------------------------------------------------------

def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Herald test stand-ins"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def load_or_create_ca(workdir: str):
    """Reuse DIR/ca.pem + DIR/ca-key.pem if both exist (restart keeps trust), else create them."""
    ca_path, key_path = os.path.join(workdir, "ca.pem"), os.path.join(workdir, "ca-key.pem")
    if os.path.exists(ca_path) and os.path.exists(key_path):
        try:
            with open(ca_path, "rb") as f:
                cert = x509.load_pem_x509_certificate(f.read())
            with open(key_path, "rb") as f:
                key = serialization.load_pem_private_key(f.read(), password=None)
            if cert.not_valid_after_utc > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1):
                return cert, key
        except Exception:  # noqa: BLE001
            log.warning("could not reuse CA in %s; creating a new one", workdir)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    name = _name("Herald Stand-in Test CA")
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(ski, critical=False)
            .sign(key, hashes.SHA256()))
    _write(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()), 0o600)
    _write(ca_path, cert.public_bytes(serialization.Encoding.PEM))
    return cert, key


def create_server_cert(workdir: str, ca_cert, ca_key):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    san = x509.SubjectAlternativeName([
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ])
    cert = (x509.CertificateBuilder()
            .subject_name(_name("localhost")).issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(san, critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = os.path.join(workdir, "server.pem"), os.path.join(workdir, "server-key.pem")
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(serialization.Encoding.PEM))
    _write(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()), 0o600)
    return cert_path, key_path


def _write(path: str, data: bytes, mode: int = 0o644):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def tls_context(cert_path: str, key_path: str, alpn) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.options |= ssl.OP_NO_COMPRESSION
    ctx.load_cert_chain(cert_path, key_path)
    ctx.set_alpn_protocols(list(alpn))
    return ctx


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def resolve_host(host: str) -> str:
    """Bind one address: a name such as "localhost" becomes its first IPv4 (else IPv6) address,
    so every port has a single socket and the printed URLs are unambiguous."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    infos.sort(key=lambda info: info[0] != socket.AF_INET)
    return infos[0][4][0]


async def serve(args) -> int:
    loop = asyncio.get_running_loop()
    workdir = os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    ca_cert, ca_key = load_or_create_ca(workdir)
    cert_path, key_path = create_server_cert(workdir, ca_cert, ca_key)

    args.host = resolve_host(args.host)
    store = Store()
    apns = Service("apns", store, allow_http1=False, environment="production")
    apns_sandbox = Service("apns", store, allow_http1=False, environment="sandbox")
    fcm = Service("fcm", store, allow_http1=True)
    apns_server = await loop.create_server(lambda: ServiceProtocol(apns), args.host, args.apns_port,
                                           ssl=tls_context(cert_path, key_path, ["h2"]), backlog=1024,
                                           reuse_address=True)
    apns_sandbox_server = await loop.create_server(lambda: ServiceProtocol(apns_sandbox), args.host,
                                                   args.apns_sandbox_port,
                                                   ssl=tls_context(cert_path, key_path, ["h2"]), backlog=1024,
                                                   reuse_address=True)
    fcm_server = await loop.create_server(lambda: ServiceProtocol(fcm), args.host, args.fcm_port,
                                          ssl=tls_context(cert_path, key_path, ["h2", "http/1.1"]), backlog=1024,
                                          reuse_address=True)
    class ControlServer(ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True
        address_family = socket.AF_INET6 if ":" in args.host else socket.AF_INET

    control = ControlServer((args.host, args.control_port), make_control_handler(store))
    control_thread = threading.Thread(target=control.serve_forever, name="control", daemon=True)
    control_thread.start()

    host = url_host(args.host)
    apns_port = apns_server.sockets[0].getsockname()[1]
    apns_sandbox_port = apns_sandbox_server.sockets[0].getsockname()[1]
    fcm_port = fcm_server.sockets[0].getsockname()[1]
    control_port = control.server_address[1]
    fcm_url = f"https://{host}:{fcm_port}"
    store.token_uri = f"{fcm_url}/token"
    line = {
        "apns_url": f"https://{host}:{apns_port}",
        "apns_sandbox_url": f"https://{host}:{apns_sandbox_port}",
        "fcm_url": fcm_url,
        "token_uri": store.token_uri,
        "ca_file": os.path.join(workdir, "ca.pem"),
        "control_url": f"http://{host}:{control_port}",
    }
    # Handlers first: whoever reads the line may signal at once.
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    if not args.no_stdin_watch:
        def watch_stdin():
            try:
                while os.read(0, 65536):
                    pass
            except OSError:
                pass
            loop.call_soon_threadsafe(stop.set)
        threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

    await stop.wait()
    for server in (apns_server, apns_sandbox_server, fcm_server):
        server.close()
    for service in (apns, apns_sandbox, fcm):
        for proto in list(service.protocols):
            proto.close()
    threading.Thread(target=control.shutdown, daemon=True).start()
    control_thread.join(timeout=2)
    control.server_close()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="APNs + FCM (+ OAuth2 token) stand-ins for Herald's tests.")
    parser.add_argument("--workdir", required=True, help="directory for ca.pem and the server certificate")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--apns-port", type=int, default=0, help="APNs production host's port (default: ephemeral)")
    parser.add_argument("--apns-sandbox-port", type=int, default=0,
                        help="APNs sandbox host's port (default: ephemeral)")
    parser.add_argument("--fcm-port", type=int, default=0, help="FCM/OAuth port (default: ephemeral)")
    parser.add_argument("--control-port", type=int, default=0, help="control port (default: ephemeral)")
    parser.add_argument("--no-stdin-watch", action="store_true",
                        help="do not exit when stdin reaches EOF (for running by hand in the background)")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, args.log_level.upper(), logging.WARNING),
                        format="standin %(levelname)s %(message)s")
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
