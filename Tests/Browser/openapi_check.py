"""Every answer the Python suites get from Herald, checked against docs/openapi.json by the validator the Swift suites
use (HeraldTesting's `OpenAPIValidator`, run as the `openapi-check` executable the build makes): the status listed
for the operation the request reached, a content type listed for it, and a body valid against its schema.

`Proxy` stands in front of a `herald serve`: whoever talks to Herald (urllib, curl, Chromium) talks to the proxy,
which forwards each request unchanged, hands back the answer unchanged, and keeps both. A test then asks
`proxy.problems()` for what the document and the answers since its last call disagree on (nothing, when they agree).
`check(exchanges)` judges exchanges recorded some other way.
"""
import base64
import http.client
import http.server
import json
import os
import subprocess
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Headers that describe one connection, not the message: not forwarded either way.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
              "content-length"}


def built(product):
    """The executable `product` of the debug build in .build, else of the release one."""
    for configuration in ("debug", "release"):
        path = os.path.join(ROOT, ".build", configuration, product)
        if os.path.exists(path):
            return path
    raise RuntimeError(f"no .build/{{debug,release}}/{product}: run swift build first")


def exchange(method, target, status, content_type, body):
    """One answer as `check` takes it (`method` None for a request that was not HTTP)."""
    return {"method": method, "target": target, "status": status, "content_type": content_type,
            "body_base64": base64.b64encode(body or b"").decode()}


def check(exchanges):
    """What is wrong with `exchanges` by docs/openapi.json, one line each: empty when nothing is."""
    if not exchanges:
        return []
    text = "".join(json.dumps(e) + "\n" for e in exchanges)
    result = subprocess.run([built("openapi-check")], input=text, capture_output=True, text=True, timeout=120)
    problems = [line for line in result.stdout.splitlines() if line.strip()]
    if result.returncode not in (0, 1) or (result.returncode == 1 and not problems):
        problems.append(f"openapi-check failed ({result.returncode}): {result.stderr.strip()}")
    return problems


class Proxy:
    """A recording HTTP/1.1 proxy on 127.0.0.1:`port` (a free one by default), in front of Herald at
    127.0.0.1:`upstream_port` (which may be set after it starts, so Herald can be told the proxy's address as its
    public URL)."""

    def __init__(self, upstream_port=None, port=0):
        self.upstream_port = upstream_port
        self.exchanges = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def forward(self):
                body = self.read_body()
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=120)
                try:
                    upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                    for name, value in self.headers.items():
                        if name.lower() not in HOP_BY_HOP:
                            upstream.putheader(name, value)
                    if body or self.command in ("POST", "PUT", "PATCH"):
                        upstream.putheader("Content-Length", str(len(body)))
                    upstream.endheaders(body)
                    answer = upstream.getresponse()
                    data = answer.read()
                    headers = [(n, v) for n, v in answer.getheaders() if n.lower() not in HOP_BY_HOP]
                    length = answer.getheader("content-length")
                finally:
                    upstream.close()
                with proxy.lock:
                    proxy.exchanges.append(exchange(self.command, self.path, answer.status,
                                                    answer.getheader("content-type"), data))
                self.send_response_only(answer.status, answer.reason)
                for name, value in headers:
                    self.send_header(name, value)
                if self.command == "HEAD" or answer.status in (204, 304):
                    if length is not None:
                        self.send_header("Content-Length", length)
                    self.end_headers()
                else:
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def read_body(self):
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    body = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:  # the last chunk, then trailer fields up to an empty line
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return body
                        body += self.rfile.read(size + 2)[:size]
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def take(self):
        """The exchanges recorded since the last call."""
        with self.lock:
            taken, self.exchanges = self.exchanges, []
        return taken

    def problems(self):
        """What the answers since the last call and docs/openapi.json disagree on."""
        return check(self.take())

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
