"""What the browser tests (Tests/Console, Tests/Card) share: the `herald` just built, run on a free port with a
throwaway data directory behind a proxy that checks every answer against docs/openapi.json (openapi_check); a small
JSON client for its API; headless Chromium (Debian's chromium + chromium-driver) under Selenium.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request

from selenium import webdriver

from openapi_check import Proxy, built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def herald_binary():
    """The debug build in .build, else the release one."""
    return built("herald")


def call(method, url, body=None, headers=None):
    """A request with a JSON body (or raw bytes); answers (status, parsed JSON answer)."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None and "Content-Type" not in request.headers:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Herald:
    """`herald serve` on 127.0.0.1, a free port, its data in `workdir`/data and its log in `workdir`/herald.log, behind
    an `openapi_check.Proxy`: `base` is the proxy's address, which Herald also links its media at (its public URL), so
    every answer a test or its browser gets passes the proxy; `problems()` says which disagree with the document."""

    def __init__(self, workdir, env):
        self.log = open(os.path.join(workdir, "herald.log"), "wb")
        self.proxy = Proxy()
        self.process = subprocess.Popen(
            [herald_binary(), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", workdir + "/data"],
            env=dict(os.environ, HERALD_PUBLIC_URL=self.proxy.base, **env), stdout=subprocess.PIPE, stderr=self.log)
        self.base = None
        deadline = time.time() + 30
        while self.base is None and time.time() < deadline:
            line = self.process.stdout.readline().decode()
            if "listening on " in line:
                self.proxy.upstream_port = int(line.strip().rsplit(":", 1)[1])
                self.base = self.proxy.base
            elif not line and self.process.poll() is not None:
                break
        assert self.base, "herald did not start: " + open(os.path.join(workdir, "herald.log")).read()

    def problems(self):
        """How the answers since the last call disagree with docs/openapi.json (none, when they agree)."""
        return self.proxy.problems()

    def stop(self):
        stop(self.process)
        self.proxy.stop()
        self.log.close()


def stop(process):
    """Terminates `process` (SIGTERM, then SIGKILL after 10 s) and closes its pipes."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for stream in (process.stdin, process.stdout):
        if stream:
            stream.close()


def chromium(window, *arguments):
    """Headless Chromium at `window` ("1280,1000") with `arguments`, logging the browser's console."""
    if not shutil.which("chromedriver") or not (shutil.which("chromium") or shutil.which("chromium-browser")):
        raise RuntimeError("chromium and chromium-driver are not installed: scripts/install-dependencies --test")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={window}", "--force-device-scale-factor=1", *arguments):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(shutil.which("chromedriver")))
    driver.implicitly_wait(0)
    return driver


def csp_violations(driver):
    """The browser log's Content-Security-Policy refusals since the last call."""
    return [entry["message"] for entry in driver.get_log("browser")
            if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]]


class BrowserTest:
    """Mixed into a browser test case: `wait` and `find` (given `self.driver` and `self.screenshot(name)`), a
    tear-down that fails a test whose answers from `herald` disagree with docs/openapi.json, and a class tear-down
    that quits `driver`, stops `herald` and the `processes` listed, and removes `workdir`."""

    def tearDown(self):
        self.assertEqual(self.herald.problems(), [], "answers that differ from docs/openapi.json")

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "driver"):
            cls.driver.quit()
        if hasattr(cls, "herald"):
            cls.herald.stop()
        for process in getattr(cls, "processes", []):
            stop(process)
        shutil.rmtree(getattr(cls, "workdir", "/nonexistent"), ignore_errors=True)

    def wait(self, condition, timeout=15, message=""):
        """Waits until `condition()` is truthy; an element gone meanwhile (the page re-rendered) just means not yet."""
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)
                                 ).until(lambda d: condition())
        except TimeoutException:
            self.screenshot("failure")
            raise AssertionError("timed out: " + message)

    def find(self, css):
        """The first element matching `css`, once it is displayed."""
        from selenium.webdriver.common.by import By
        return self.wait(lambda: (lambda e: e[0] if e and e[0].is_displayed() else None)(
            self.driver.find_elements(By.CSS_SELECTOR, css)), message=css)
