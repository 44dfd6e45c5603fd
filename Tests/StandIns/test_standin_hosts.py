"""End-to-end tests of the stand-in's two APNs hosts (standin.py): production and sandbox.

Run from the worktree root:  python3 -m unittest Tests/StandIns/test_standin_hosts.py
"""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_standin import DEVICE, DEVICE2, StandinTestCase  # noqa: E402


class ApnsHostsTests(StandinTestCase):
    """The production and sandbox hosts: a token registered as one environment's is BadDeviceToken on the other."""

    def tearDown(self):
        self.standin.control("DELETE", "/apns/tokens")
        super().tearDown()

    def test_each_host_refuses_the_other_environments_tokens(self):
        s = self.standin
        s.control("POST", "/apns/tokens", {"environment": "sandbox", "tokens": [DEVICE]})
        s.control("POST", "/apns/tokens", {"environment": "production", "tokens": [DEVICE2.upper()]})
        unknown = "c" * 64
        production, sandbox = self.apns_client(), self.apns_client("sandbox")
        answers = {
            (environment, token): self.send_apns(client, token=token).status
            for environment, client in (("production", production), ("sandbox", sandbox))
            for token in (DEVICE, DEVICE2, unknown)
        }
        self.assertEqual(answers, {
            ("production", DEVICE): 400, ("production", DEVICE2): 200, ("production", unknown): 200,
            ("sandbox", DEVICE): 200, ("sandbox", DEVICE2): 400, ("sandbox", unknown): 200,
        })
        refused = self.send_apns(production, token=DEVICE)
        self.assertEqual(refused.json()["reason"], "BadDeviceToken")
        records = s.control("GET", "/apns/requests")
        self.assertEqual([r["environment"] for r in records[:3]], ["production"] * 3)
        self.assertEqual([r["environment"] for r in records[3:6]], ["sandbox"] * 3)
        self.assertEqual(s.control("GET", "/apns/tokens"), {DEVICE: "sandbox", DEVICE2: "production"})
        # Kept across /reset, as keys are; DELETE forgets them.
        s.control("POST", "/reset")
        self.assertEqual(self.send_apns(production, token=DEVICE).status, 400)
        s.control("DELETE", "/apns/tokens")
        self.assertEqual(self.send_apns(production, token=DEVICE).status, 200)

    def test_bad_registrations_are_named(self):
        for body in ({"environment": "staging", "tokens": [DEVICE]}, {"environment": "sandbox"},
                     {"environment": "sandbox", "tokens": [1]}, []):
            with self.assertRaises(AssertionError):
                self.standin.control("POST", "/apns/tokens", body)


if __name__ == "__main__":
    unittest.main()
