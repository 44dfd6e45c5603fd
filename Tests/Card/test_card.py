"""The notification card (card/) in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven
by Selenium, at phone sizes (390×844 and 412×915), light and dark.

The card is loaded exactly as the console serves it — `/console/card/card.html` from a real `herald serve` (the
debug build in .build, else the release one) on a free port, under its Content-Security-Policy — and this test
plays its host the way the SDK's web view does: a `window.webkit.messageHandlers.herald` that records what the card
posts, and `heraldCard.receive(text)` to answer. Survey answers are checked as in the console: each `validate` is
forwarded to `POST /api/admin/surveys/validate`, Herald's own SurveyValidator. Media come from Herald's media host
(same origin, byte ranges); Chromium reaches no other host (`--host-resolver-rules`). The SDK's one-page document
(`CardAssets.document`, made by scripts/generate-console) is loaded too, under its own <meta> policy.

Screenshots go to Tests/Card/artifacts/ (ignored by git); with HERALD_UPDATE_SCREENSHOTS=1 the ones the docs show are
copied to docs/ as well.

Run from the repository root after `swift build`: python3 -m unittest Tests/Card/test_card.py
"""
import functools
import http.server
import importlib.machinery
import importlib.util
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import threading
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from browser_support import ROOT, BrowserTest, Herald, call, chromium, csp_violations  # noqa: E402

MEDIA = os.path.join(ROOT, "Tests", "Card", "media")
ARTIFACTS = os.path.join(ROOT, "Tests", "Card", "artifacts")
ADMIN_TOKEN = "hadm_card_test_" + secrets.token_hex(8)
PHONES = [(390, 844), (412, 915)]
SCHEMES = ["light", "dark"]
# What the docs show, by the name the test saves them under.
DOCS_SCREENSHOTS = {"light-390": "card-light.png", "dark-390": "card-dark.png", "video-light-390": "card-video.png",
                    "audio-dark-390": "card-audio.png", "survey-step": "card-survey-step.png",
                    "survey-thanks": "card-survey-thanks.png"}

# Played by the test host before the card's script runs: it records what the card posts (as WKWebView's script
# handler would receive it) and every Content-Security-Policy violation the page reports.
HOST_SCRIPT = """
window.__herald = [];
window.__violations = [];
window.webkit = { messageHandlers: { herald: { postMessage: (text) => window.__herald.push(text) } } };
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
"""

# The YouTube links the card plays from youtube-nocookie.com, and the ones it opens outside instead (the table the
# SDK's YouTubeEmbed was tested with, now the card's rule).
YOUTUBE_EMBEDDED = [
    ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10", "dQw4w9WgXcQ"),
    ("https://youtu.be/dQw4w9WgXcQ?si=x", "dQw4w9WgXcQ"),
    ("https://m.youtube.com/watch?feature=share&v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
    ("https://www.youtube.com/shorts/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
    ("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
    ("HTTPS://YOUTUBE.COM/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
]
YOUTUBE_OUTSIDE = [
    "https://evil.example/watch?v=dQw4w9WgXcQ", "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
    "https://www.youtube.com/watch?v=short", "https://www.youtube.com/watch?v=dQw4w9WgXcQ%22",
    "javascript:alert(1)", "https://user@evil.example/watch?v=dQw4w9WgXcQ", "ftp://youtube.com/watch?v=dQw4w9WgXcQ",
]


def generator():
    """scripts/generate-console as a module: what it embeds is what the SDK loads."""
    loader = importlib.machinery.SourceFileLoader("generate_console", os.path.join(ROOT, "scripts", "generate-console"))
    spec = importlib.util.spec_from_loader("generate_console", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def card_browser():
    """Chromium as the card's host: it records what the card posts and reaches no host but this machine's."""
    driver = chromium("390,844", "--mute-audio",
                      # Nothing may play before Play because of the card, not because the browser would refuse.
                      "--autoplay-policy=no-user-gesture-required",
                      # No network: only this machine's servers answer.
                      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOST_SCRIPT})
    return driver


class CardInBrowser(BrowserTest, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(ARTIFACTS, exist_ok=True)
        cls.workdir = tempfile.mkdtemp(prefix="herald-card-")
        cls.herald = Herald(cls.workdir, dict(HERALD_ADMIN_TOKEN=ADMIN_TOKEN, HERALD_LOG_LEVEL="warning"))
        cls.base = cls.herald.base
        cls.admin = {"Authorization": "Bearer " + ADMIN_TOKEN}
        status, business = call("POST", cls.base + "/api/admin/businesses", {"name": "Card Co"}, cls.admin)
        assert status == 201, business
        cls.media = {}
        for name in ("video.mp4", "audio.mp3", "poster.png"):
            with open(os.path.join(MEDIA, name), "rb") as f:
                status, uploaded = call("POST", f"{cls.base}/api/admin/businesses/{business['id']}/media?type="
                                        + name.split(".")[1], f.read(), cls.admin)
            assert status == 201, uploaded
            assert uploaded["url"].startswith(cls.base + "/media/"), uploaded
            cls.media[name] = uploaded["url"]
        cls.driver = card_browser()

    def setUp(self):
        self.questions = []
        self.answered = set()

    def tearDown(self):
        # Every test ends with the page having reported no Content-Security-Policy violation.
        violations = self.driver.execute_script("return window.__violations || []")
        self.assertEqual(violations + csp_violations(self.driver), [], "Content-Security-Policy violations")
        super().tearDown()

    # -- the host ---------------------------------------------------------------------------------------------------

    def open_card(self, width=390, height=844, scheme="light", reduced_motion=False, url=None):
        d = self.driver
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": scheme},
            {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else "no-preference"}]})
        # The app behind the card.
        color = {"r": 214, "g": 224, "b": 238, "a": 1} if scheme == "light" else {"r": 28, "g": 31, "b": 40, "a": 1}
        d.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": color})
        d.get(url or self.base + "/console/card/card.html")
        self.wait(lambda: any(m["type"] == "ready" for m in self.posted()), message="the card's ready")
        self.assertEqual(self.posted()[0], {"type": "ready", "version": 1})
        self.answered = set()

    def show(self, message, appearance=None, settle=True):
        """Shows `message` as the host does, and waits until the card has come in (its entrance animation over)."""
        self.questions = message.get("questions", [])
        text = json.dumps({"type": "show", "message": message, "appearance": appearance or {}})
        self.driver.execute_script("heraldCard.receive(arguments[0])", text)
        if settle:
            self.settle()

    def settle(self):
        self.wait(lambda: self.js("const c = document.getElementById('card'); return !c.hidden"
                                  " && !c.classList.contains('entering')"), message="the card in place")

    def posted(self):
        """What the card posted so far, parsed (the SDK's CardBridge reads the same text)."""
        return [json.loads(text) for text in self.driver.execute_script("return window.__herald")]

    def events(self, message_id):
        """The card's events about `message_id`, in order (validate excluded)."""
        return [m for m in self.posted() if m.get("message_id") == message_id and m["type"] != "validate"]

    def answer_validations(self):
        """Hands each new `validate` to Herald's validator (the admin route) and its problems back to the card."""
        for message in self.posted():
            if message["type"] != "validate" or message["request_id"] in self.answered:
                continue
            self.answered.add(message["request_id"])
            status, result = call("POST", self.base + "/api/admin/surveys/validate",
                                  {"questions": self.questions, "answers": message["answers"]}, self.admin)
            self.assertEqual(status, 200, result)
            reply = {"type": "validation", "request_id": message["request_id"], "problems": result["problems"]}
            self.driver.execute_script("heraldCard.receive(arguments[0])", json.dumps(reply))
            self.last_problems = result["problems"]

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def screenshot(self, name):
        path = os.path.join(ARTIFACTS, name + ".png")
        self.driver.save_screenshot(path)
        if os.environ.get("HERALD_UPDATE_SCREENSHOTS") and name in DOCS_SCREENSHOTS:
            shutil.copyfile(path, os.path.join(ROOT, "docs", DOCS_SCREENSHOTS[name]))
        return path

    def player(self, css):
        return self.js("const m = document.querySelector(arguments[0]);"
                       "return m && {paused: m.paused, time: m.currentTime, ended: m.ended, controls: m.controls,"
                       " duration: m.duration}", css)

    def rect(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e && e.getBoundingClientRect().toJSON()", css)

    # -- messages ---------------------------------------------------------------------------------------------------

    def message(self, id, media=None, **extra):
        message = {"id": id, "campaign_id": "7", "type": "message", "headline": "Free fries today",
                   "body": "Show this card at the counter: fries are on us with any burger.", "sandbox": False,
                   "cta": {"label": "Order now", "url": "https://burger.example.com/order"}, "questions": []}
        if media:
            message["media"] = media
        message.update(extra)
        return message

    SURVEY = [
        {"id": "dip", "text": "Which dip?", "type": "single_choice", "required": True,
         "choices": [{"id": "ketchup", "text": "Ketchup"}, {"id": "mayo", "text": "Mayo"}]},
        {"id": "sides", "text": "Which sides did you have?", "type": "multiple_choice", "required": False,
         "max_selected": 2, "choices": [{"id": "fries", "text": "Fries"}, {"id": "salad", "text": "Salad"},
                                        {"id": "rings", "text": "Onion rings"}]},
        {"id": "stars", "text": "How were the fries?", "type": "rating", "required": True, "min": 1, "max": 5},
        {"id": "again", "text": "Would you come again?", "type": "boolean", "required": True},
        {"id": "party", "text": "How many were you?", "type": "number", "required": False, "min": 1, "max": 50},
        {"id": "crisp", "text": "How crisp, 0 to 10?", "type": "slider", "required": False, "min": 0, "max": 10},
        {"id": "note", "text": "Anything else?", "type": "open_ended", "required": False, "max_length": 20},
    ]

    # -- media ------------------------------------------------------------------------------------------------------

    def test_every_medium_shows_and_plays_after_play_only(self):
        for width, height in PHONES:
            for scheme in SCHEMES:
                with self.subTest(phone=f"{width}x{height}", scheme=scheme):
                    self.check_media(width, height, scheme)

    def check_media(self, width, height, scheme):
        d = self.driver
        tag = f"{scheme}-{width}"
        self.open_card(width, height, scheme)

        # An image, the headline, the body, the call to action; the close button inside the card's top-right corner,
        # over the media, and on top of it.
        self.show(self.message("m-image", {"type": "image", "url": self.media["poster.png"]}))
        self.wait(lambda: self.js("const i = document.querySelector('.media img'); return i.complete && i.naturalWidth > 0"),
                  message="the image")
        self.assertEqual(self.find(".headline").text, "Free fries today")
        self.assertIn("fries are on us", self.find(".body").text)
        self.assertEqual(self.find(".cta").text, "Order now")
        card, close, media = self.rect("#card"), self.rect(".close"), self.rect(".media")
        self.assertTrue(0 <= close["top"] - card["top"] <= 16 and 0 <= card["right"] - close["right"] <= 16, (card, close))
        self.assertTrue(media["top"] <= close["top"] and close["bottom"] <= media["bottom"] and close["right"] <= media["right"],
                        (media, close))
        self.assertTrue(self.js("const r = document.querySelector('.close').getBoundingClientRect();"
                                "return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)"
                                " === document.querySelector('.close')"), "the close button is on top")
        self.assertLessEqual(card["right"], width)
        # Light or dark, as the system says.
        background = self.js("return getComputedStyle(document.getElementById('card')).backgroundColor")
        self.assertEqual(background, "rgb(255, 255, 255)" if scheme == "light" else "rgb(31, 32, 36)")
        self.screenshot(tag)
        self.assertEqual([m["type"] for m in self.events("m-image")], ["displayed"])

        # A video: a poster and Play; nothing plays (nor has controls) until Play; then it plays inline to the end.
        self.show(self.message("m-video", {"type": "video", "url": self.media["video.mp4"],
                                           "thumbnail_url": self.media["poster.png"]}))
        self.find(".media-video .play")
        self.assertEqual(self.js("return document.querySelector('video').getAttribute('poster')"), self.media["poster.png"])
        time.sleep(1.2)
        state = self.player("video")
        self.assertTrue(state["paused"] and state["time"] == 0 and not state["controls"], state)
        self.assertEqual([m["type"] for m in self.events("m-video")], ["displayed"])
        self.find(".media-video .play").click()
        self.wait(lambda: self.player("video")["time"] > 0.8 and not self.player("video")["paused"], message="the video plays")
        self.assertTrue(self.player("video")["controls"], "its own controls (full screen) once playing")
        self.assertTrue(self.js("return document.querySelector('video').playsInline"))
        self.screenshot(f"video-{tag}")
        self.wait(lambda: self.player("video")["ended"], message="the video's end")
        self.wait(lambda: [m["type"] for m in self.events("m-video")] == ["displayed", "media_viewed", "media_completed"],
                  message="viewed then completed")
        self.assertLess(self.events("m-video")[1]["position_seconds"], 0.5)

        # Audio: its own player, Play and Pause, a seek bar, elapsed and total time.
        self.show(self.message("m-audio", {"type": "audio", "url": self.media["audio.mp3"]}))
        toggle = self.find(".media-audio .toggle")
        self.assertEqual(toggle.get_attribute("aria-label"), "Play")
        self.wait(lambda: self.find(".time .total").text == "0:03", message="the total time")
        time.sleep(1.0)
        self.assertEqual(self.find(".time .elapsed").text, "0:00")
        self.assertTrue(self.player("audio")["paused"] and self.player("audio")["time"] == 0)
        toggle.click()
        self.wait(lambda: self.player("audio")["time"] >= 1.05, message="the audio plays")
        self.assertEqual(toggle.get_attribute("aria-label"), "Pause")
        self.wait(lambda: self.find(".time .elapsed").text in ("0:01", "0:02"), message="elapsed moves")
        self.assertGreaterEqual(float(self.find(".track input[type=range]").get_attribute("value")), 1)
        self.screenshot(f"audio-{tag}")
        toggle.click()
        self.wait(lambda: self.player("audio")["paused"] and toggle.get_attribute("aria-label") == "Play", message="paused")
        # The seek bar moves the player (and elapsed with it); playing on reaches the end.
        seek = self.find(".track input[type=range]")
        seek.send_keys(Keys.END)
        self.wait(lambda: self.player("audio")["time"] > 2.5, message="seeking to the end")
        self.assertEqual(self.find(".time .elapsed").text, "0:03")
        seek.send_keys(Keys.HOME)
        self.wait(lambda: self.player("audio")["time"] < 0.5 and self.find(".time .elapsed").text == "0:00", message="back to the start")
        toggle.click()
        self.wait(lambda: self.player("audio")["ended"], timeout=20, message="the audio's end")
        self.wait(lambda: [m["type"] for m in self.events("m-audio")] == ["displayed", "media_viewed", "media_completed"],
                  message="viewed then completed")
        self.wait(lambda: toggle.get_attribute("aria-label") == "Play", message="Play again at the end")

        # YouTube: nothing loads from YouTube until Play; then the privacy-enhanced player with the video's id, full
        # screen allowed.
        self.show(self.message("m-youtube", {"type": "youtube", "url": "https://youtu.be/dQw4w9WgXcQ",
                                             "thumbnail_url": self.media["poster.png"]}))
        self.find(".media-youtube .play")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, "iframe"), [])
        self.find(".media-youtube .play").click()
        frame = self.find(".media-youtube iframe")
        self.assertTrue(frame.get_attribute("src").startswith("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?"))
        self.assertIsNotNone(frame.get_attribute("allowfullscreen"))
        self.assertIn("fullscreen", frame.get_attribute("allow"))
        self.assertEqual(frame.get_attribute("referrerpolicy"), "strict-origin-when-cross-origin")
        self.assertNotIn("allow-top-navigation", frame.get_attribute("sandbox"), "links inside open outside, not here")
        self.assertEqual([m["type"] for m in self.events("m-youtube")], ["displayed", "media_viewed"])

        # Application, text and file media: a row that asks the host to open them outside.
        for kind, url, name in (("application", "https://burger.example.com/app", "app"),
                                ("text", "https://burger.example.com/terms.txt", "terms.txt"),
                                ("file", "https://burger.example.com/menu%20card.pdf", "menu card.pdf")):
            self.show(self.message("m-" + kind, {"type": kind, "url": url}))
            row = self.find(f".file[data-kind={kind}]")
            self.assertIn(name, row.text)
            self.assertEqual(row.get_attribute("aria-label"), "Open " + name)
            row.click()
            self.wait(lambda: len(self.events("m-" + kind)) == 3, message="open_url")
            self.assertEqual(self.events("m-" + kind)[1:], [
                {"type": "media_viewed", "message_id": "m-" + kind, "position_seconds": 0},
                {"type": "open_url", "message_id": "m-" + kind, "url": url}])

    def test_youtube_links_play_from_youtube_nocookie_or_open_outside(self):
        self.open_card()
        for url, video in YOUTUBE_EMBEDDED:
            self.show(self.message("y", {"type": "youtube", "url": url}))
            self.find(".media-youtube .play").click()
            self.assertEqual(self.find("iframe").get_attribute("src").split("?")[0],
                             "https://www.youtube-nocookie.com/embed/" + video, url)
        for url in YOUTUBE_OUTSIDE:
            self.show(self.message("y", {"type": "youtube", "url": url}))
            self.find(".file[data-kind=youtube]")
            self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, ".play, iframe"), [], url)

    # -- the ribbon, the call to action, closing, events ------------------------------------------------------------

    def test_sandbox_ribbon_cta_and_close_report_in_order_with_the_message_id(self):
        self.open_card()
        self.show(self.message("m-1"))
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, ".ribbon"), [])
        self.show(self.message("m-sandbox", {"type": "image", "url": self.media["poster.png"]},
                               sandbox=True, headline="Sandbox · Free fries today"))
        ribbon = self.find(".ribbon")
        self.assertEqual(ribbon.text, "SANDBOX")
        card, box = self.rect("#card"), self.rect(".ribbon")
        self.assertTrue(box["left"] < card["left"] + 60 and box["top"] < card["top"] + 60, "in the top-left corner")
        self.find(".cta").click()
        self.find(".close").click()
        self.wait(lambda: self.js("return document.getElementById('card').hidden"), message="closed")
        self.assertEqual(self.events("m-sandbox"), [
            {"type": "displayed", "message_id": "m-sandbox"},
            {"type": "cta_clicked", "message_id": "m-sandbox", "url": "https://burger.example.com/order"},
            {"type": "dismissed", "message_id": "m-sandbox"}])
        # Without a label, the button says its link.
        self.show(self.message("m-2", cta={"url": "https://burger.example.com/x"}))
        self.assertEqual(self.find(".cta").text, "https://burger.example.com/x")
        # Closing stops what plays.
        self.show(self.message("m-3", {"type": "video", "url": self.media["video.mp4"]}))
        self.find(".play").click()
        self.wait(lambda: not self.player("video")["paused"], message="playing")
        self.find(".close").click()
        self.wait(lambda: self.player("video")["paused"], message="paused by closing")
        self.assertEqual([m["type"] for m in self.events("m-3")], ["displayed", "media_viewed", "dismissed"])

    # -- the survey -------------------------------------------------------------------------------------------------

    def test_survey_wizard_answers_every_question_type_with_the_servers_rules(self):
        for width, height in PHONES:
            for scheme in SCHEMES:
                with self.subTest(phone=f"{width}x{height}", scheme=scheme):
                    self.check_survey(width, height, scheme)

    def next(self, expect_problem=None):
        """Clicks Next (or Submit), serves the card's validate from Herald's validator, and waits for its answer."""
        before = self.find(".progress-text").text
        count = len([m for m in self.posted() if m["type"] == "validate"])
        self.find(".next").click()
        self.wait(lambda: len([m for m in self.posted() if m["type"] == "validate"]) == count + 1, message="validate")
        self.answer_validations()
        if expect_problem:
            return self.wait(lambda: (lambda text: text if expect_problem in text else None)(self.find(".problem").text),
                             message="the problem: " + expect_problem)
        self.wait(lambda: self.find(".progress-text").text != before or self.driver.find_elements(By.CSS_SELECTOR, ".thanks"),
                  message="the next step")
        return None

    def choose(self, value):
        """Clicks the option (radio or checkbox, by its label) whose value is `value`."""
        self.find(f"label.option:has(input[value='{value}'])").click()

    def progress(self):
        return self.find(".progress-text").text

    def check_survey(self, width, height, scheme):
        d = self.driver
        self.open_card(width, height, scheme)
        message = self.message("s-1", type="survey", questions=self.SURVEY, headline="Tell us about your fries",
                               body="Seven questions, one minute.")
        self.show(message)
        self.assertEqual(self.progress(), "Question 1 of 7")
        self.assertEqual(self.find(".progress").get_attribute("aria-valuetext"), "Question 1 of 7")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".back"), [], "no Back on the first question")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".cta"), [], "the call to action waits for the thank-you step")

        # 1. single choice, required: Next is blocked with the validator's message until it is answered.
        text = self.next(expect_problem="is required")
        self.assertEqual(text, "This answer is required.")
        self.assertEqual(self.last_problems[0], {"question_id": "dip", "code": "required", "message": "is required"})
        self.assertEqual(self.progress(), "Question 1 of 7")
        group = self.find("[role=radiogroup]")
        self.assertEqual(group.get_attribute("aria-invalid"), "true")
        self.assertEqual(group.get_attribute("aria-describedby"), self.find(".problem").get_attribute("id"))
        self.choose("mayo")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".problem"), [], "answering clears the problem")
        self.next()

        # 2. multiple choice, at most 2: three are refused by the validator; two go on.
        self.assertEqual(self.progress(), "Question 2 of 7")
        for choice in ("fries", "salad", "rings"):
            self.choose(choice)
        self.assertEqual(self.next(expect_problem="must select at most 2 choices"),
                         "This answer must select at most 2 choices.")
        self.choose("rings")
        self.next()
        self.screenshot("survey-step" if (width, scheme) == (390, "light") else f"survey-{scheme}-{width}")

        # Back keeps the answers.
        self.assertEqual(self.progress(), "Question 3 of 7")
        self.find(".back").click()
        self.assertEqual(self.progress(), "Question 2 of 7")
        self.assertEqual([e.get_attribute("value") for e in d.find_elements(By.CSS_SELECTOR, "input:checked")],
                         ["fries", "salad"])
        self.next()

        # 3. rating 1 to 5, required.
        self.next(expect_problem="is required")
        self.choose("4")
        self.next()
        # 4. boolean, required.
        self.assertEqual(self.progress(), "Question 4 of 7")
        self.choose("true")
        self.next()
        # 5. number 1 to 50: out of range and not a number are the validator's to refuse.
        field = self.find(".answer-number")
        field.send_keys("500")
        self.assertEqual(self.next(expect_problem="must be at most 50"), "This answer must be at most 50.")
        field = self.find(".answer-number")
        field.clear()
        field.send_keys("a dozen")
        self.assertEqual(self.next(expect_problem="must be a number"), "This answer must be a number.")
        field = self.find(".answer-number")
        field.clear()
        field.send_keys("12" + Keys.ENTER)  # Enter goes on, as Next does
        self.wait(lambda: len([m for m in self.posted() if m["type"] == "validate"]) > len(self.answered), message="validate")
        self.answer_validations()
        self.wait(lambda: self.progress() == "Question 6 of 7", message="question 6")
        # 6. slider 0 to 10, optional: moved with the keyboard.
        slider = self.find(".slider input[type=range]")
        self.assertEqual(self.find(".slider output").text, "Not set")
        slider.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        self.assertEqual(self.find(".slider output").text, "7")
        self.next()
        # 7. open ended, at most 20 characters: Submit checks every answer.
        self.assertEqual(self.find(".next").text, "Submit")
        self.find(".answer-text").send_keys("Crispy and hot, as always!")
        self.assertEqual(self.find(".counter").text, "26 of 20 characters")
        self.assertEqual(self.next(expect_problem="is too long"), "This answer is too long (at most 20 characters).")
        area = self.find(".answer-text")
        area.clear()
        area.send_keys("  Crispy and hot!  ")
        self.next()

        # Thank you, with the call to action; the answers went to the host as the server takes them.
        self.assertEqual(self.find(".thanks").text, "Thank you!")
        self.assertEqual(self.progress(), "Question 7 of 7")
        self.assertEqual(self.find(".progress").get_attribute("aria-valuenow"), "7")
        self.screenshot("survey-thanks" if (width, scheme) == (390, "light") else f"survey-thanks-{scheme}-{width}")
        self.find(".cta").click()
        events = self.events("s-1")
        self.assertEqual([e["type"] for e in events], ["displayed", "survey_started", "survey_submitted", "cta_clicked"])
        answers = events[2]["answers"]
        self.assertEqual(answers, [
            {"question_id": "dip", "value": "mayo"}, {"question_id": "sides", "value": ["fries", "salad"]},
            {"question_id": "stars", "value": 4}, {"question_id": "again", "value": True},
            {"question_id": "party", "value": 12}, {"question_id": "crisp", "value": 7},
            {"question_id": "note", "value": "  Crispy and hot!  "}])
        status, result = call("POST", self.base + "/api/admin/surveys/validate",
                              {"questions": self.SURVEY, "answers": answers}, self.admin)
        self.assertEqual((status, result), (200, {"problems": []}), "the server takes what the card submitted")
        self.assertTrue(all(m.get("message_id") == "s-1" for m in self.posted()[1:]))

    # -- appearance, direction, strings -----------------------------------------------------------------------------

    def test_appearance_strings_and_right_to_left(self):
        self.open_card(scheme="light")
        appearance = {"colors": {"light": {"background": "#fffbe6", "accent": "rgb(214, 35, 0)", "text": "nonsense"},
                                 "dark": {"background": "#101010"}},
                      "corner_radius": 24, "font_size": 18, "headline_size": 26, "font_family": "Georgia, serif",
                      "strings": {"close": "Fermer", "next": "Suivant", "progress": "Question {current} sur {total}",
                                  "problem": "Cette réponse : {message}", "unknown_key": "x"}}
        self.show(self.message("a-1", type="survey", questions=self.SURVEY[:2]), appearance)
        style = self.js("const c = getComputedStyle(document.getElementById('card')), h = getComputedStyle(document.querySelector('.headline')),"
                        " b = getComputedStyle(document.querySelector('.body')), n = getComputedStyle(document.querySelector('.next'));"
                        "return [c.backgroundColor, c.borderTopLeftRadius, h.fontSize, b.fontSize, n.backgroundColor, c.color, b.fontFamily]")
        self.assertEqual(style, ["rgb(255, 251, 230)", "24px", "26px", "18px", "rgb(214, 35, 0)", "rgb(28, 29, 33)",
                                 "Georgia, serif"])
        self.assertEqual(self.find(".close").get_attribute("aria-label"), "Fermer")
        self.assertEqual(self.find(".next").text, "Suivant")
        self.assertEqual(self.progress(), "Question 1 sur 2")
        self.assertEqual(self.next(expect_problem="is required"), "Cette réponse : is required")
        # The app may force dark (or light) whatever the system says.
        self.show(self.message("a-2"), dict(appearance, color_scheme="dark"))
        self.assertEqual(self.js("return getComputedStyle(document.getElementById('card')).backgroundColor"), "rgb(16, 16, 16)")
        # Right to left: the close button and the ribbon change corners.
        self.show(self.message("a-3", {"type": "image", "url": self.media["poster.png"]}, sandbox=True,
                               headline="كوبون البطاطس", body="اعرض هذه البطاقة"), {"direction": "rtl", "lang": "ar"})
        self.assertEqual(self.js("return [document.documentElement.dir, document.documentElement.lang]"), ["rtl", "ar"])
        card, close, ribbon = self.rect("#card"), self.rect(".close"), self.rect(".ribbon")
        self.assertTrue(0 <= close["left"] - card["left"] <= 16, (card, close))
        self.assertGreater(ribbon["right"], card["right"] - 60)
        self.assertEqual(self.js("return getComputedStyle(document.querySelector('.headline')).direction"), "rtl")
        self.screenshot("rtl")
        # The strings table of docs/sdk.md is the card's.
        with open(os.path.join(ROOT, "docs", "sdk.md"), encoding="utf-8") as f:
            guide = f.read()
        section = guide.split("### The card's strings", 1)[1].split("\n#", 1)[0]
        documented = dict(re.findall(r"^\| `(\w+)` \| (.*?) \|$", section, re.M))
        self.assertEqual(documented, {k: v.replace("|", "\\|") for k, v in self.js("return heraldCard.strings").items()})

    # -- accessibility ----------------------------------------------------------------------------------------------

    def test_accessibility_labels_focus_keyboard_and_reduced_motion(self):
        d = self.driver
        self.open_card()
        self.show(self.message("k-1", {"type": "video", "url": self.media["video.mp4"]}), settle=False)
        # Entering is animated, unless the user asked for less motion.
        self.assertEqual(self.js("return getComputedStyle(document.getElementById('card')).animationName"), "herald-card-in")
        self.settle()
        # A modal dialog named by its headline; focus moves into it.
        card = self.find("#card")
        self.assertEqual((card.get_attribute("role"), card.get_attribute("aria-modal")), ("dialog", "true"))
        self.assertEqual(self.js("return document.getElementById(document.getElementById('card')"
                                 ".getAttribute('aria-labelledby')).textContent"), "Free fries today")
        self.assertEqual(d.switch_to.active_element, card)
        # Every control has a name; Tab goes close → Play → the call to action.
        order = []
        for _ in range(3):
            d.switch_to.active_element.send_keys(Keys.TAB)
            active = d.switch_to.active_element
            order.append(active.get_attribute("aria-label") or active.text)
        self.assertEqual(order, ["Close", "Play video", "Order now"])
        unnamed = self.js("return [...document.querySelectorAll('button, input, textarea, iframe, video')]"
                          ".filter(e => !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.title"
                          " || e.textContent.trim() || e.closest('label'))).map(e => e.outerHTML)")
        self.assertEqual(unnamed, [])
        # The keyboard plays (Shift+Tab back to Play, Enter) and Escape closes.
        d.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
        d.switch_to.active_element.send_keys(Keys.ENTER)
        self.wait(lambda: not self.player("video")["paused"], message="Enter plays")
        d.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.wait(lambda: self.js("return document.getElementById('card').hidden"), message="Escape closes")
        self.assertEqual([m["type"] for m in self.events("k-1")], ["displayed", "media_viewed", "dismissed"])

        # A survey by keyboard only: arrows pick, Enter goes on; every input is labelled by its question.
        self.show(self.message("k-2", type="survey", questions=self.SURVEY))
        unlabelled = self.js("return [...document.querySelectorAll('input, textarea')].filter(e => !e.closest('label')"
                             " && !e.getAttribute('aria-labelledby')).length")
        self.assertEqual(unlabelled, 0)
        first = self.find("input[value=ketchup]")
        first.send_keys(Keys.SPACE)
        first.send_keys(Keys.ARROW_DOWN)
        self.assertEqual(d.switch_to.active_element.get_attribute("value"), "mayo")
        self.assertTrue(d.switch_to.active_element.is_selected())
        d.switch_to.active_element.send_keys(Keys.ENTER)
        self.wait(lambda: any(m["type"] == "validate" for m in self.posted()), message="validate")
        self.answer_validations()
        self.wait(lambda: self.progress() == "Question 2 of 7", message="Enter goes on")
        self.assertEqual(d.switch_to.active_element.tag_name, "legend", "focus on the new question")
        self.assertEqual(d.switch_to.active_element.text, "Which sides did you have?")

        # Reduced motion: no animation, no transition.
        motion = ("const c = getComputedStyle(document.getElementById('card'));"
                  "return [c.animationName, getComputedStyle(document.querySelector('.progress > span')).transitionDuration]")
        self.assertEqual(self.js(motion), ["none", "0.2s"], "the progress bar glides")
        self.open_card(reduced_motion=True)
        self.show(self.message("k-3", type="survey", questions=self.SURVEY), settle=False)
        self.assertEqual(self.js(motion), ["none", "0s"])

    # -- the SDK's document -----------------------------------------------------------------------------------------

    def test_the_sdks_one_page_document_runs_under_its_own_policy(self):
        """`CardAssets.document` as the SDK's web view loads it: no server behind it, code inline, allowed by hash."""
        document = generator().card_document()
        directory = tempfile.mkdtemp(prefix="herald-card-document-")
        with open(os.path.join(directory, "card.html"), "w", encoding="utf-8") as f:
            f.write(document)

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def end_headers(self):
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            self.open_card(url=f"http://127.0.0.1:{server.server_port}/card.html")
            self.assertEqual(self.js("return document.querySelectorAll('link, script[src]').length"), 0, "all inline")
            picture = "data:image/gif;base64,R0lGODlhAQABAIAAAAUEBAAAACwAAAAAAQABAAACAkQBADs="
            self.show(self.message("d-1", {"type": "image", "url": picture}, type="survey", questions=self.SURVEY[:1]))
            self.assertEqual(self.find(".headline").text, "Free fries today")
            self.next(expect_problem="is required")
            self.assertEqual([m["type"] for m in self.events("d-1")], ["displayed", "survey_started"])
        finally:
            server.shutdown()
            server.server_close()
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
