"""The admin console in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven by Selenium.

One test walks what an operator does, against a real `herald serve` (the debug build in .build, else the release
one) on a free port whose APNs is the repository's stand-ins (Tests/StandIns/standin.py): sign in (a wrong token
first: its error is shown next to the token field), create a business, upload its .p8 key and its FCM
service-account file, rotate its identity key (add one, retire the original), sign two iPhones and an Android phone
up through the mobile API, see a segment's count, compose a campaign with an image and a survey (the preview follows
the typing; a missing headline is answered next to the headline field; the in-app card — the SDK's own — walks the survey step by step,
the server's validator refusing an unanswered required question), launch it, and watch the report count the deliveries the
stand-in accepted; then the device lookup, a test push, a template preview, a geofence, and the composer at phone
width. Screenshots go to Tests/Console/artifacts/ (ignored by git).

Run from the repository root after `swift build`: python3 -m unittest Tests/Console/test_console.py
"""
import hashlib
import hmac
import json
import os
import secrets
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from browser_support import ROOT, BrowserTest, Herald, call as http, chromium, csp_violations  # noqa: E402

ARTIFACTS = os.path.join(ROOT, "Tests", "Console", "artifacts")
ADMIN_TOKEN = "hadm_console_test_" + secrets.token_hex(8)
KEY_ID, TEAM_ID, TOPIC = "ABC123DEFG", "DEF123GHIJ", "com.example.burger"


def png(width=120, height=80):
    """A small valid PNG (a gradient), so the media upload's magic-number check passes."""
    raw = b"".join(b"\x00" + b"".join(bytes((x * 2 % 256, y * 3 % 256, 180)) for x in range(width))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class ConsoleInBrowser(BrowserTest, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(ARTIFACTS, exist_ok=True)
        cls.workdir = tempfile.mkdtemp(prefix="herald-console-")
        cls.standin = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "Tests", "StandIns", "standin.py"), "--workdir", cls.workdir + "/standin"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        cls.processes = [cls.standin]
        announced = json.loads(cls.standin.stdout.readline())
        cls.control = announced["control_url"]
        key = ec.generate_private_key(ec.SECP256R1())
        cls.p8 = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()).decode()
        public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        status, _ = http("POST", cls.control + "/apns/keys",
                         {"key_id": KEY_ID, "team_id": TEAM_ID, "topic": TOPIC, "public_key_pem": public})
        assert status == 200, status
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cls.service_account = {
            "type": "service_account", "project_id": "burger-co-app", "private_key_id": "0123456789abcdef",
            "private_key": rsa_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()).decode(),
            "client_email": "herald@burger-co-app.iam.gserviceaccount.com", "token_uri": announced["token_uri"]}
        status, _ = http("POST", cls.control + "/fcm/accounts", {
            "client_email": cls.service_account["client_email"], "project_id": "burger-co-app",
            "private_key_id": "0123456789abcdef",
            "public_key_pem": rsa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                serialization.PublicFormat.SubjectPublicKeyInfo).decode()})
        assert status == 200, status

        cls.herald = Herald(cls.workdir, dict(
            HERALD_APNS_URL=announced["apns_url"], HERALD_FCM_URL=announced["fcm_url"],
            HERALD_CA_FILE=announced["ca_file"], HERALD_ADMIN_TOKEN=ADMIN_TOKEN, HERALD_PASSWORD_COST="1024",
            HERALD_LOG_LEVEL="warning"))
        cls.base = cls.herald.base
        cls.driver = chromium("1280,1000")

    # -- helpers ---------------------------------------------------------------------------------------------------

    def field(self, name):
        return self.find(f'[data-field="{name}"]')

    def type_into(self, name, text, clear=True):
        element = self.field(name)
        if clear:
            element.clear()
        element.send_keys(text)
        return element

    def screenshot(self, name):
        path = os.path.join(ARTIFACTS, name + ".png")
        self.driver.save_screenshot(path)
        return path

    def element_screenshot(self, css, name):
        path = os.path.join(ARTIFACTS, name + ".png")
        self.driver.find_element(By.CSS_SELECTOR, css).screenshot(path)
        return path

    def error_next_to(self, name):
        """The error paragraph the console put right after the field named `name`, once it is there."""
        def found():
            return self.driver.execute_script(
                "const input = document.querySelector(`[data-field=\"${arguments[0]}\"]`);"
                "const next = input && input.nextElementSibling;"
                "return next && next.classList.contains('field-error') && input.getAttribute('aria-invalid') === 'true'"
                " && input.getAttribute('aria-describedby') === next.id ? next.textContent : null;", name)
        return self.wait(found, message=f"an error next to {name}")

    def sign_up(self, client, secret, email, token, device, android=False):
        body = json.dumps({"client": client, "user": {"first_name": "Ann", "last_name": "Lee", "email": email,
                                                      "password": "password123", "password_confirmation": "password123",
                                                      "gcm_token" if android else "apn_token": token}}).encode()
        digest = hmac.new(secret.encode(), b"/api2/mobile/users" + body, hashlib.sha256).hexdigest()
        status, answer = http("POST", self.base + "/api2/mobile/users", body,
                              {"Content-Type": "application/json", "x-pch-digest": digest, "punchh-app-device-id": device})
        self.assertEqual(status, 200, answer)
        return answer

    # -- the walk-through ------------------------------------------------------------------------------------------

    def test_an_operator_runs_a_campaign_from_the_console(self):
        d = self.driver
        d.get(self.base + "/console/")
        self.assertEqual(d.title, "Herald console")

        # Sign in: a wrong token is answered next to the field; the right one is kept in sessionStorage only.
        self.find("#token").send_keys("hadm_wrong")
        self.find("#sign-in-form button[type=submit]").click()
        self.assertIn("not the admin token", self.error_next_to("token"))
        token = self.find("#token")
        token.clear()
        token.send_keys(ADMIN_TOKEN + Keys.ENTER)
        self.find("#create-business")
        self.assertEqual(d.execute_script("return sessionStorage.getItem('herald.adminToken')"), ADMIN_TOKEN)
        self.assertEqual(d.execute_script("return localStorage.length"), 0)
        self.assertNotIn(ADMIN_TOKEN, d.current_url)

        # Create a business: its keys are shown once.
        self.type_into("name", "Burger Co")
        self.find("#create-business button[type=submit]").click()
        keys = self.find("#business-keys")
        shown = {p.find_element(By.TAG_NAME, "strong").text.rstrip(": "): p.find_element(By.CSS_SELECTOR, ".secret").text
                 for p in keys.find_elements(By.CSS_SELECTOR, "p") if p.find_elements(By.CSS_SELECTOR, ".secret")}
        self.assertTrue(shown["client"] and shown["secret"] and shown["api_key"].startswith("hlive_"))
        keys.find_element(By.CSS_SELECTOR, "a").click()

        # Upload the .p8 key; its status shows, never the key.
        key_path = os.path.join(self.workdir, f"AuthKey_{KEY_ID}.p8")
        with open(key_path, "w") as f:
            f.write(self.p8)
        self.field("key_p8").send_keys(key_path)
        self.assertEqual(self.field("key_id").get_attribute("value"), KEY_ID)  # read from the file's name
        self.type_into("team_id", TEAM_ID)
        self.type_into("topic", TOPIC)
        Select(self.field("environment")).select_by_value("sandbox")
        self.find("#apns-form button[type=submit]").click()
        self.wait(lambda: "ok" in d.find_element(By.ID, "apns-status").text and KEY_ID in d.find_element(By.ID, "apns-status").text,
                  message="the APNs status")
        body = d.find_element(By.TAG_NAME, "body").text
        for line in self.p8.splitlines()[1:-1]:
            self.assertNotIn(line, body)

        # And the FCM service-account file.
        account_path = os.path.join(self.workdir, "service-account.json")
        with open(account_path, "w") as f:
            json.dump(self.service_account, f)
        self.field("service_account").send_keys(account_path)
        self.find("#fcm-form button[type=submit]").click()
        self.wait(lambda: "ok" in d.find_element(By.ID, "fcm-status").text
                  and "burger-co-app" in d.find_element(By.ID, "fcm-status").text, message="the FCM status")
        self.assertNotIn(self.service_account["private_key"].splitlines()[1], d.page_source)

        # Rotate the identity key: a new one is added (its text shown once), then the original is retired.
        self.find("#identity-keys tr[data-kid=original]")
        self.find("#identity-keys button[type=submit]").click()
        added = self.find("#identity-key-added")
        kid = added.find_element(By.CSS_SELECTOR, ".mono").text
        new_key = added.find_element(By.CSS_SELECTOR, ".secret").text
        self.assertTrue(kid.startswith("ik_") and len(new_key) == 43, kid)
        added.find_element(By.CSS_SELECTOR, "button").click()
        self.find(f'#identity-keys tr[data-kid="{kid}"]')
        self.assertNotIn(new_key, d.page_source)  # listed, never shown again
        # A toast covers the corner it shows in for four seconds, buttons included: a click there goes through it.
        d.execute_script("toast('Identity key added')")
        self.assertTrue(d.execute_script(
            "const box = document.querySelector('#toast p:last-child').getBoundingClientRect();"
            "return !document.getElementById('toast').contains("
            "document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));"),
            "a click on a toast reaches the page under it")
        self.find('#identity-keys button[aria-label="Retire original"]').click()
        d.switch_to.alert.accept()
        self.wait(lambda: "live" not in d.find_element(By.CSS_SELECTOR, "#identity-keys tr[data-kid=original]").text,
                  message="the original key retired")
        self.assertIn("live", d.find_element(By.CSS_SELECTOR, f'#identity-keys tr[data-kid="{kid}"]').text)
        identity_key = f"{self.base}/api/admin/businesses/{d.current_url.rsplit('/', 1)[1]}/identity-key"
        self.assertEqual(http("GET", identity_key, None, {"Authorization": "Bearer " + ADMIN_TOKEN})[0], 404)

        # Two iPhones and an Android phone sign up through the mobile API.
        tokens = [secrets.token_hex(32) for _ in range(2)]
        for n, push_token in enumerate(tokens):
            self.sign_up(shown["client"], shown["secret"], f"user{n}@example.com", push_token, f"iphone-{n}")
        android_token = "fcm-" + secrets.token_urlsafe(40)
        self.sign_up(shown["client"], shown["secret"], "droid@example.com", android_token, "pixel", android=True)

        # A segment (made through the API: the console picks segments, it does not edit their filters).
        business_id = d.current_url.rsplit("/", 1)[1]
        status, segment = http("POST", f"{self.base}/api/admin/businesses/{business_id}/segments",
                               {"name": "iPhones", "filter": {"platform": "ios"}},
                               {"Authorization": "Bearer " + ADMIN_TOKEN, "Content-Type": "application/json"})
        self.assertEqual(status, 201, segment)

        # The composer: the preview follows the typing.
        d.get(f"{self.base}/console/#/b/{business_id}/compose")
        preview_title = lambda: d.find_element(By.CSS_SELECTOR, '[data-testid="iphone"] .title').text
        headline = self.field("message.headline")
        budget_before = self.find("#budget-text").text
        seen = []
        for chunk in ("Free ", "fries ", "today"):
            headline.send_keys(chunk)
            self.wait(lambda: preview_title() == headline.get_attribute("value").strip(), message="the preview's title")
            seen.append(preview_title())
        self.assertEqual(seen, ["Free", "Free fries", "Free fries today"])
        self.assertEqual(d.find_element(By.CSS_SELECTOR, '[data-testid="android"] .title').text, "Free fries today")
        self.assertNotEqual(self.find("#budget-text").text, budget_before)

        # A field error from the API, next to its field: no headline.
        headline.clear()
        self.type_into("name", "Fries launch")
        self.type_into("message.body", "Show this push at the counter for free fries with any burger.")
        self.find("#launch").click()
        self.assertIn("blank", self.error_next_to("message.headline"))
        self.assertEqual(d.switch_to.active_element.get_attribute("data-field"), "message.headline")  # focus moved there
        headline.send_keys("Free fries today")

        # An image, uploaded to /media; the preview shows it.
        image_path = os.path.join(self.workdir, "fries.png")
        with open(image_path, "wb") as f:
            f.write(png())
        self.field("message.media").send_keys(image_path)
        self.wait(lambda: "Uploaded" in d.find_element(By.ID, "media-status").text, message="the upload")
        # Herald's link is http here (no --public-url): the console says phones will not download it.
        self.assertIn("only over https", d.find_element(By.ID, "media-status").text)
        self.find('[data-testid="iphone"] img.thumb')
        self.type_into("message.cta.label", "Get the coupon")
        self.type_into("message.cta.url", "https://burger.example.com/fries")

        # A survey: a rating and a single choice.
        self.type_into("survey.title", "Fries survey")
        Select(self.find("#new-question-type")).select_by_value("rating")
        self.find("#add-question").click()
        self.type_into("survey.questions[0].text", "How were the fries?")
        Select(self.find("#new-question-type")).select_by_value("single_choice")
        self.find("#add-question").click()
        self.type_into("survey.questions[1].text", "Which dip?")
        self.type_into("survey.questions[1].choices", "Ketchup\nMayo\nNone")
        self.assertEqual(len(d.find_elements(By.CSS_SELECTOR, "#new-question-type option")), 7)

        # The in-app card beside the pushes: the SDK's own card, framed and driven through its bridge, the survey step
        # by step, each answer judged by the server's validator (POST /api/admin/surveys/validate).
        self.find('.question[data-index="0"] [data-role=required]').click()
        d.switch_to.frame(self.find("#card-frame"))
        try:
            self.wait(lambda: d.find_element(By.CSS_SELECTOR, ".headline").text == "Free fries today", message="the card")
            self.wait(lambda: d.execute_script("const i = document.querySelector('.media img');"
                                               " return i && i.complete && i.naturalWidth > 0"), message="its image")
            self.wait(lambda: self.find(".progress-text").text == "Question 1 of 2", message="the survey's first step")
            self.assertEqual(self.find(".question-text").text, "How were the fries? · Required")
            self.find(".next").click()
            self.wait(lambda: d.find_element(By.CSS_SELECTOR, ".problem").text == "This answer is required.",
                      message="the validator's refusal")
            self.find("label.option:has(input[value='4'])").click()
            self.find(".next").click()
            self.wait(lambda: self.find(".progress-text").text == "Question 2 of 2", message="the second step")
            self.find(".back").click()
            self.assertTrue(d.find_element(By.CSS_SELECTOR, "input[value='4']").is_selected(), "Back keeps the answer")
            self.find(".next").click()
            self.wait(lambda: self.find(".progress-text").text == "Question 2 of 2", message="the second step again")
            self.find("label.option:has(input[value=c1])").click()
            self.find(".next").click()
            self.wait(lambda: self.find(".thanks").text == "Thank you!", message="the thank-you step")
            self.find(".cta").click()
        finally:
            d.switch_to.default_content()
        reported = lambda: [li.get_attribute("data-type") for li in d.find_elements(By.CSS_SELECTOR, "#card-events li")]
        self.wait(lambda: reported() == ["displayed", "survey_started", "survey_submitted", "cta_clicked"],
                  message="what the card reported")
        self.assertIn('[{"question_id":"q1","value":4},{"question_id":"q2","value":"c1"}]',
                      d.find_element(By.CSS_SELECTOR, "#card-events li[data-type=survey_submitted]").text)
        self.assertIn("opens https://burger.example.com/fries",
                      d.find_element(By.CSS_SELECTOR, "#card-events li[data-type=cta_clicked]").text)
        self.element_screenshot("#card-frame", "composer-card-thanks")

        # The audience: the segment picker shows how many devices it holds now; launched to everyone below.
        self.find('input[name=audience][value=segment]').click()
        Select(self.field("audience.segment_id")).select_by_visible_text("iPhones")
        self.wait(lambda: d.find_element(By.ID, "segment-count").text == "2 devices in “iPhones” now",
                  message="the segment's count")
        self.find('input[name=audience][value=all]').click()

        # Screenshots of the preview: light and dark, collapsed and expanded with the image.
        for theme in ("light", "dark"):
            Select(self.find("#preview-theme")).select_by_value(theme)
            for expanded in (False, True):
                box = self.find("#preview-expanded")
                if box.is_selected() != expanded:
                    box.click()
                self.wait(lambda: d.find_element(By.CSS_SELECTOR, '[data-testid="iphone"]').get_attribute("class").split()[2:4]
                          == [theme, "expanded" if expanded else "collapsed"], message="the preview's mode")
                if expanded:
                    self.find('[data-testid="iphone"] img.image')
                    self.find('[data-testid="android"] .cta')
                    self.wait(lambda: d.execute_script(
                        "return [...document.querySelectorAll('#phones img')].every(i => i.complete && i.naturalWidth > 0)"),
                        message="the image loaded")
                self.element_screenshot("#preview", f"composer-preview-{theme}-{'expanded' if expanded else 'collapsed'}")
        self.screenshot("composer")

        # Launch: the report counts the deliveries the stand-in accepted.
        self.find("#launch").click()
        self.wait(lambda: "/campaigns/" in d.current_url, message="the report page")
        self.wait(lambda: d.find_elements(By.CSS_SELECTOR, '[data-metric="delivered"]')
                  and d.find_element(By.CSS_SELECTOR, '[data-metric="delivered"]').text == "3", timeout=30,
                  message="3 delivered in the report")
        self.assertEqual(d.find_element(By.CSS_SELECTOR, '[data-metric="targeted"]').text, "3")
        self.assertTrue(d.find_elements(By.CSS_SELECTOR, "#funnel svg rect"))
        self.wait(lambda: len(d.find_elements(By.CSS_SELECTOR, "#timeline polyline")) == 3, message="the timeline")
        status, received = http("GET", self.control + "/apns/requests")
        campaign_pushes = [r for r in received if r["status"] == 200 and r["payload"].get("aps", {}).get("alert", {}).get("title") == "Free fries today"]
        self.assertEqual(sorted(r["token"] for r in campaign_pushes), sorted(tokens))
        status, received = http("GET", self.control + "/fcm/requests")
        self.assertEqual([r["token"] for r in received if r["status"] == 200
                          and r["body"]["message"].get("notification", {}).get("title") == "Free fries today"],
                         [android_token])
        self.screenshot("report")

        # Device lookup by token prefix: its delivery and Apple's answer; a test push.
        d.get(f"{self.base}/console/#/b/{business_id}/devices")
        self.type_into("token_prefix", tokens[0][:10])
        self.find("#device-form button[type=submit]").click()
        card = self.find(".device")
        self.assertIn(tokens[0][:8], card.text)
        self.assertNotIn(tokens[0], d.page_source)
        self.assertIn("delivered", card.text)
        self.assertIn("accepted", card.text)
        card.find_element(By.XPATH, ".//button[text()='Send test push']").click()
        self.wait(lambda: "Queued as notification" in d.find_element(By.CSS_SELECTOR, ".device p[aria-live]").text,
                  message="the test push")
        self.type_into("token_prefix", "ab")
        self.find("#device-form button[type=submit]").click()
        self.assertIn("4 to 256", self.error_next_to("token_prefix"))
        self.screenshot("devices")

        # A template's live preview, rendered by the server.
        d.get(f"{self.base}/console/#/b/{business_id}/templates")
        Select(self.find("#template-event")).select_by_value("checkin")
        self.type_into("title", "Hi {{first_name}}, +{{points}}")
        self.wait(lambda: d.find_element(By.CSS_SELECTOR, '[data-testid="iphone"] .title').text == "Hi Jamie, +12",
                  message="the template preview")

        # A geofence, drawn and listed.
        d.get(f"{self.base}/console/#/b/{business_id}/geofences")
        self.type_into("name", "Brooklyn store")
        self.type_into("center.latitude", "40.6782")
        self.type_into("center.longitude", "-73.9442")
        self.type_into("radius_meters", "5")
        self.find("#geofence-form button[type=submit]").click()
        self.error_next_to("radius_meters")
        self.type_into("radius_meters", "150")
        self.find("#geofence-form button[type=submit]").click()
        self.wait(lambda: "Brooklyn store" in d.find_element(By.TAG_NAME, "table").text, message="the geofence list")

        # At phone width the composer stacks and nothing scrolls sideways; keyboard focus is visible to Tab.
        d.set_window_size(390, 844)
        d.get(f"{self.base}/console/#/b/{business_id}/compose")
        self.type_into("message.headline", "Free fries today")
        self.screenshot("composer-phone")
        wide = d.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1"
            " && ![...e.children].some(c => c.getBoundingClientRect().right > innerWidth + 1))"
            ".map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))")
        self.assertEqual(wide, [], "wider than the phone")
        self.screenshot("composer-phone")
        d.set_window_size(1280, 1000)
        active = d.switch_to.active_element
        active.send_keys(Keys.TAB)
        self.assertNotEqual(d.switch_to.active_element, active)

        self.assertEqual(csp_violations(d), [])


if __name__ == "__main__":
    unittest.main()
