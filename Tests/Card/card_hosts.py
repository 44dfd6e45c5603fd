"""The two engines the card's tests run in, each playing the host the way the SDK's web view does, and what they need:

- `ChromiumHost`: headless Chromium (Debian's chromium + chromium-driver). Its `window.webkit.messageHandlers.herald`
  is the test's own stand-in (a script run before the page's), the phone's screen, colour scheme and motion are
  emulated through the DevTools protocol, and no host but this machine's resolves.
- `WebKitHost`: WebKitGTK (Debian's webkit2gtk-driver, gir1.2-webkit2-4.1) on a private Xvfb, in `webkit_host.py`:
  a web view set up as the SDK's (card/webview.json), its `herald` handler WebKit's own. Every request but this
  machine's goes through `YouTubeStandIn`, which answers for www.youtube-nocookie.com and refuses the rest.

Both run `PROBES` in every page before its own scripts: what the card posts is collected in `window.__herald` (by
the stand-in handler in Chromium, by the native host in WebKit), Content-Security-Policy violations in
`window.__violations`, and `window.__keyboard(pixels)` raises (0 lowers) a simulated on-screen keyboard: the
visual viewport shrinks by that much, as on a phone, and says so with a `resize` event.
"""
import json
import os
import select
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time

from selenium import webdriver

from browser_support import ROOT, chromium, csp_violations, stop

PROBES = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
(() => {
  const real = window.visualViewport;
  if (!real) return;
  let keyboard = 0;
  const fake = new EventTarget();
  for (const name of ["offsetLeft", "offsetTop", "pageLeft", "pageTop", "width", "scale"]) {
    Object.defineProperty(fake, name, { get: () => real[name] });
  }
  Object.defineProperty(fake, "height", { get: () => Math.max(0, real.height - keyboard) });
  for (const type of ["resize", "scroll"]) real.addEventListener(type, () => fake.dispatchEvent(new Event(type)));
  Object.defineProperty(window, "visualViewport", { configurable: true, get: () => fake });
  window.__keyboard = (pixels) => { keyboard = pixels; fake.dispatchEvent(new Event("resize")); };
})();
"""
# The stand-in handler Chromium gets; WebKit's is native.
CHROMIUM_HANDLER = """
window.__herald = [];
window.webkit = { messageHandlers: { herald: { postMessage: (text) => window.__herald.push(text) } } };
"""


class ChromiumHost:
    name = "chromium"

    def __init__(self):
        self.driver = chromium("390,844", "--mute-audio",
                               # Nothing may play before Play because of the card, not because the browser would refuse.
                               "--autoplay-policy=no-user-gesture-required",
                               # No network: only this machine's servers answer.
                               "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CHROMIUM_HANDLER + PROBES})

    def open(self, url, width, height, scheme, reduced_motion):
        d = self.driver
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": scheme},
            {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else "no-preference"}]})
        # The app behind the card.
        color = {"r": 214, "g": 224, "b": 238, "a": 1} if scheme == "light" else {"r": 28, "g": 31, "b": 40, "a": 1}
        d.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": color})
        d.get(url)

    def violations(self):
        return csp_violations(self.driver)

    def quit(self):
        self.driver.quit()


class WebKitHost:
    name = "webkit"

    def __init__(self):
        for tool in ("WebKitWebDriver", "Xvfb"):
            if not shutil.which(tool):
                raise RuntimeError(f"{tool} is not installed: scripts/install-dependencies --test")
        self.directory = tempfile.mkdtemp(prefix="herald-card-webkit-")
        self.xvfb, display = start_xvfb()
        self.youtube = YouTubeStandIn(self.directory)
        probes = os.path.join(self.directory, "probes.js")
        with open(probes, "w", encoding="utf-8") as f:
            f.write(PROBES)
        env = dict(os.environ, DISPLAY=display, HERALD_CARD_HOST_SCRIPT=probes,
                   HERALD_CARD_HOST_PROXY=f"http://127.0.0.1:{self.youtube.port}", GDK_BACKEND="x11",
                   LIBGL_ALWAYS_SOFTWARE="1", WEBKIT_DISABLE_COMPOSITING_MODE="1")
        env.pop("WAYLAND_DISPLAY", None)
        options = webdriver.WebKitGTKOptions()
        options.binary_location = os.path.join(ROOT, "Tests", "Card", "webkit_host.py")
        options.set_capability("browserName", "HeraldCardHost")
        service = webdriver.WebKitGTKService(shutil.which("WebKitWebDriver"), env=env,
                                             log_output=os.path.join(self.directory, "driver.log"))
        self.driver = webdriver.WebKitGTK(options=options, service=service)

    def control(self, **command):
        """Tells the host what the phone's system would: colour scheme, reduced motion, the app's colour."""
        self.driver.execute_script("window.webkit.messageHandlers.heraldHost.postMessage(arguments[0])",
                                   json.dumps(command))

    def open(self, url, width, height, scheme, reduced_motion):
        self.driver.set_window_size(width, height)
        # The system's settings before the page loads: WebKitGTK re-evaluates `matchMedia` when reduced motion
        # changes, but not the styles of a page already laid out, as a phone's new web view would not need to.
        background = [214, 224, 238] if scheme == "light" else [28, 31, 40]
        self.control(scheme=scheme, reduced_motion=reduced_motion, background=background)
        self.driver.get(url)
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1], want = arguments[0], motion = arguments[1];"
            "const check = () => matchMedia(`(prefers-color-scheme: ${want})`).matches"
            " && matchMedia(`(prefers-reduced-motion: ${motion})`).matches ? done() : setTimeout(check, 20);"
            "check()", scheme, "reduce" if reduced_motion else "no-preference")

    def screenshot(self, path):
        """The window as the screen shows it, from the host (see webkit_host.py's `screenshot`)."""
        if os.path.exists(path):
            os.remove(path)
        self.control(screenshot=path)
        deadline = time.monotonic() + 15
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise AssertionError("the WebKit host took no screenshot")
            time.sleep(0.05)

    def violations(self):
        return []  # the page's own listener (PROBES) reports them

    def quit(self):
        try:
            self.driver.quit()
        finally:
            self.youtube.stop()
            stop(self.xvfb)
            shutil.rmtree(self.directory, ignore_errors=True)


def start_xvfb():
    """A private X server on a free display (Xvfb picks it); answers (process, ":N")."""
    read, write = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                               pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    if not number:
        stop(process)
        raise RuntimeError("Xvfb did not start")
    return process, ":" + number


# YouTube's embedded player, as far as the card can tell: the page its frame loads, which starts playing by itself
# (`autoplay=1`), as YouTube's player does. Whether it could is the host's to decide.
EMBED_PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>YouTube</title>
<style>html, body, video { margin: 0; width: 100%; height: 100%; background: #000; }</style></head>
<body><video src="/stand-in/video.mp4" playsinline></video>
<script>
const video = document.querySelector("video");
window.__autoplay = "pending";
video.play().then(() => { window.__autoplay = "playing"; }, (error) => { window.__autoplay = "refused: " + error.name; });
</script></body></html>
"""


class YouTubeStandIn:
    """An http proxy on 127.0.0.1: a CONNECT to www.youtube-nocookie.com:443 is answered by this process (TLS with a
    certificate of its own, which the WebKit host doesn't check), serving `EMBED_PAGE` for /embed/… and the card
    tests' video; every other host is refused. `embeds` lists the paths asked for."""

    HOST = "www.youtube-nocookie.com"

    def __init__(self, directory):
        key, certificate = os.path.join(directory, "youtube.key"), os.path.join(directory, "youtube.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", key,
                        "-out", certificate, "-subj", "/CN=" + self.HOST, "-addext", "subjectAltName=DNS:" + self.HOST],
                       check=True, capture_output=True)
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(certificate, key)
        with open(os.path.join(ROOT, "Tests", "Card", "media", "video.mp4"), "rb") as f:
            self.video = f.read()
        self.embeds = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.running = True
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()

    def handle(self, connection):
        try:
            with connection:
                request = read_head(connection)
                method, target = request.split(b" ")[:2] if request else (b"", b"")
                if method != b"CONNECT" or target.decode() != self.HOST + ":443":
                    connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                with self.tls.wrap_socket(connection, server_side=True) as tunnel:
                    while self.answer(tunnel):
                        pass
        except (OSError, ssl.SSLError, ValueError):
            pass

    def answer(self, tunnel):
        """Answers one request on the tunnel; false when the peer is done."""
        head = read_head(tunnel)
        if not head:
            return False
        path = head.split(b" ")[1].decode()
        headers = {line.split(b":", 1)[0].strip().lower(): line.split(b":", 1)[1].strip()
                   for line in head.split(b"\r\n")[1:] if b":" in line}
        if path.startswith("/embed/"):
            self.embeds.append(path)
            status, kind, body = b"200 OK", b"text/html; charset=utf-8", EMBED_PAGE
        elif path == "/stand-in/video.mp4":
            status, kind, body = b"200 OK", b"video/mp4", self.video
        else:
            status, kind, body = b"404 Not Found", b"text/plain", b"not here"
        extra = b""
        ranged = headers.get(b"range", b"")
        if status == b"200 OK" and ranged.startswith(b"bytes="):
            first, _, last = ranged[6:].decode().partition("-")
            first, last = int(first or 0), min(int(last) if last else len(body) - 1, len(body) - 1)
            extra = f"Content-Range: bytes {first}-{last}/{len(body)}\r\n".encode()
            status, body = b"206 Partial Content", body[first:last + 1]
        tunnel.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + kind + b"\r\nAccept-Ranges: bytes\r\n" + extra
                       + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        return True

    def stop(self):
        self.running = False
        self.server.close()


def read_head(connection):
    """The request line and headers (up to the blank line), or b"" when the peer closed first."""
    data = b""
    while b"\r\n\r\n" not in data:
        # TLS may hold decrypted bytes already (`pending`), which select can't see.
        pending = connection.pending() if isinstance(connection, ssl.SSLSocket) else 0
        ready = pending or select.select([connection], [], [], 30)[0]
        chunk = connection.recv(4096) if ready else b""
        if not chunk:
            return b""
        data += chunk
        if len(data) > 65536:
            raise ValueError("head too long")
    return data.split(b"\r\n\r\n", 1)[0]
