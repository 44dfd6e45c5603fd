"""The README's walk-through, run as written: every shell block of "A walk-through with curl", "The device API" and
"A campaign, end to end", in order, in one bash, against a real `herald serve` (the debug build in .build, else the
release one) and the stand-ins `scripts/standin` runs — and each answer the README shows (`# {…}` under a command)
compared with what the command printed.

How an answer is compared: whitespace is ignored (the README wraps long lines); `…` stands for anything, along with
the letters and digits it touches (`"hk_b94b…"` is any key id); a run of 9 or more digits is any number (times,
transaction ids). Answers in one comment block are found in the output in their order. `# the push: {…}` is compared
with the last payload the APNs stand-in received (waited for up to 10 s: the push leaves after the answer). The blocks that start the stand-ins and Herald in their own shells
are run by the test itself, on free ports that replace 8441–8443 and 8080 everywhere. Port 8080's stand-in is a proxy
in front of Herald (Tests/Browser/openapi_check.py, Herald's public URL) that checks every answer against
docs/openapi.json: the test fails on any the document does not describe.

Run from the repository root after `swift build`: python3 -m unittest Tests/Readme/test_walkthrough.py
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from browser_support import ROOT, herald_binary, stop  # noqa: E402
from openapi_check import Proxy, check  # noqa: E402

SECTIONS = ("## A walk-through with curl", "## The device API", "## A campaign, end to end")
SENTINEL = "__walkthrough_step_done__"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def readme_blocks():
    """The ```sh blocks of SECTIONS, in order."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
        text = readme.read()
    blocks, section = [], None
    for part in re.split(r"^(## .*)$", text, flags=re.M):
        if part.startswith("## "):
            section = part.strip()
        elif section and section.startswith(SECTIONS):
            blocks += re.findall(r"^```sh\n(.*?)^```", part, flags=re.M | re.S)
    return blocks


def steps(block):
    """A block cut into (commands, [expected answer, …]): each run of commands up to the answers shown under it."""
    result, commands, answers = [], [], []
    for line in block.splitlines():
        comment = re.match(r"^# ?(.*)$", line)
        if comment and commands:
            text = comment.group(1)
            if text.startswith(("{", "[", "the push: ")):
                answers.append(text)
            elif answers and line.startswith("#  "):
                answers[-1] += text
            continue
        if answers:
            result.append(("\n".join(commands), answers))
            commands, answers = [], []
        if not comment:
            commands.append(line)
    if commands or answers:
        result.append(("\n".join(commands), answers))
    return result


def pattern(answer):
    """A regular expression for an answer as the README shows it (see the module's comment)."""
    squeezed = re.sub(r"\s+", "", answer)
    out, position = [], 0
    for match in re.finditer(r"[A-Za-z0-9_]*…[A-Za-z0-9_]*|\d{9,}", squeezed):
        out.append(re.escape(squeezed[position:match.start()]))
        out.append(".*?" if "…" in match.group() else r"\d+")
        position = match.end()
    out.append(re.escape(squeezed[position:]))
    return "".join(out)


class Walkthrough(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="herald-readme-")
        cls.ports = {8441: free_port(), 8442: free_port(), 8443: free_port(), 8444: free_port(), 8080: free_port()}
        cls.standin = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "scripts", "standin"), "--dir", "dev-providers",
             "--apns-port", str(cls.ports[8441]), "--apns-sandbox-port", str(cls.ports[8444]),
             "--fcm-port", str(cls.ports[8442]),
             "--control-port", str(cls.ports[8443])],
            cwd=cls.workdir, stdout=subprocess.PIPE, text=True)
        banner = cls.standin.stdout.readline()
        assert banner.startswith("APNs and FCM stand-ins running"), banner
        environment = dict(os.environ, HERALD_PASSWORD_COST="1024", HERALD_LOG_LEVEL="warning")
        with open(os.path.join(cls.workdir, "dev-providers", "env")) as variables:
            for line in variables:
                name, value = line.removeprefix("export ").strip().split("=", 1)
                environment[name] = value
        cls.log = open(os.path.join(cls.workdir, "herald.log"), "wb")
        cls.proxy = Proxy(upstream_port=free_port(), port=cls.ports[8080])
        environment["HERALD_PUBLIC_URL"] = f"http://127.0.0.1:{cls.ports[8080]}"
        cls.herald = subprocess.Popen(
            [herald_binary(), "serve", "--port", str(cls.proxy.upstream_port)],
            cwd=cls.workdir, env=environment, stdout=subprocess.PIPE, stderr=cls.log, text=True)
        cls.announced = []
        while not cls.announced or "listening on" not in cls.announced[-1]:
            line = cls.herald.stdout.readline()
            assert line, "herald did not start: " + open(os.path.join(cls.workdir, "herald.log")).read()
            cls.announced.append(line.strip())

    @classmethod
    def tearDownClass(cls):
        stop(cls.herald)
        cls.proxy.stop()
        cls.log.close()
        stop(cls.standin)
        shutil.rmtree(cls.workdir, ignore_errors=True)

    def localized(self, text):
        for readme, port in self.ports.items():
            text = text.replace(f"localhost:{readme}", f"localhost:{port}").replace(
                f"127.0.0.1:{readme}", f"127.0.0.1:{port}")
        return text

    def last_push(self):
        with urllib.request.urlopen(f"http://localhost:{self.ports[8443]}/apns/requests", timeout=10) as answer:
            return json.dumps(json.load(answer)[-1]["payload"])

    def test_the_readme_walkthrough_answers_what_it_shows(self):
        blocks = [b for b in readme_blocks() if not re.search(r"^scripts/(standin|serve)", b, flags=re.M)]
        self.assertGreater(len(blocks), 10, "the walk-through's blocks were not found in README.md")
        shell = subprocess.Popen(["bash"], cwd=self.workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        try:
            checked, mismatches = 0, []
            for block in blocks:
                for commands, answers in steps(block):
                    shell.stdin.write(self.localized(commands) + f"\necho; echo {SENTINEL}\n")
                    shell.stdin.flush()
                    output = []
                    while True:
                        line = shell.stdout.readline()
                        self.assertTrue(line, f"bash ended during:\n{commands}\n{''.join(output)}")
                        if line.strip() == SENTINEL:
                            break
                        output.append(line)
                    printed = re.sub(r"\s+", "", "".join(output))
                    position = 0
                    for answer in answers:
                        if answer.startswith("the push: "):
                            answer = answer.removeprefix("the push: ")
                            expected = re.compile(pattern(self.localized(answer)))
                            # The push leaves after the answer: wait for it (a busy machine takes a moment).
                            deadline = time.time() + 10
                            while True:
                                got = self.last_push()
                                match = expected.search(re.sub(r"\s+", "", got))
                                if match or time.time() > deadline:
                                    break
                                time.sleep(0.1)
                        else:
                            got = printed
                            match = re.compile(pattern(self.localized(answer))).search(printed, position)
                        checked += 1
                        if match is None:
                            mismatches.append(f"$ {commands}\nprinted: {got if got is not printed else ''.join(output).strip()}"
                                              f"\nREADME:  {answer}")
                        elif got is printed:
                            position = match.end()
            self.assertEqual(mismatches, [], "\n\n".join(["answers that differ from the README's:"] + mismatches))
            self.assertGreater(checked, 30)
            exchanges = self.proxy.take()
            self.assertGreater(len(exchanges), 30)
            self.assertEqual(check(exchanges), [], "answers that differ from docs/openapi.json")
        finally:
            shell.stdin.close()
            stop(shell)


if __name__ == "__main__":
    unittest.main()
