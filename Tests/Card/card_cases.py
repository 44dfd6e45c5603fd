"""What the card's tests share, whichever engine hosts the card (card_hosts.py): a real `herald serve` (the debug
build in .build, else the release one) on a free port serving the card as the console does,
`/console/card/card.html` under its Content-Security-Policy, with the test's media uploaded to it; the engine as the
card's host, recording what the card posts and answering with `heraldCard.receive(text)` as the SDK does; and the
helpers the tests use. `MediaCases` (here) and `SurveyCases` (survey_cases.py) hold the tests themselves;
test_card.py runs them in each engine.
"""
import importlib.machinery
import importlib.util
import json
import os
import secrets
import shutil
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import ROOT, BrowserTest, Herald, call

MEDIA = os.path.join(ROOT, "Tests", "Card", "media")
ARTIFACTS = os.path.join(ROOT, "Tests", "Card", "artifacts")
ADMIN_TOKEN = "hadm_card_test_" + secrets.token_hex(8)
PHONES = [(390, 844), (412, 915)]
SCHEMES = ["light", "dark"]
# What the docs show, by the name the test saves them under.
DOCS_SCREENSHOTS = {"light-390": "card-light.png", "dark-390": "card-dark.png", "video-light-390": "card-video.png",
                    "audio-dark-390": "card-audio.png", "survey-step": "card-survey-step.png",
                    "survey-thanks": "card-survey-thanks.png"}

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



class CardCase(BrowserTest):
    """Set up once per engine (`Host`: a card_hosts class): Herald, a business, its media, the host."""

    Host = None

    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(ARTIFACTS, cls.Host.name), exist_ok=True)
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
        cls.host = cls.Host()
        cls.driver = cls.host.driver

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "host"):
            cls.host.quit()
            del cls.driver
        super().tearDownClass()

    def setUp(self):
        self.questions = []
        self.answered = set()

    def tearDown(self):
        # Every test ends with the page having reported no Content-Security-Policy violation.
        violations = self.driver.execute_script("return window.__violations || []")
        self.assertEqual(violations + self.host.violations(), [], "Content-Security-Policy violations")
        super().tearDown()

    # -- the host ---------------------------------------------------------------------------------------------------

    def open_card(self, width=390, height=844, scheme="light", reduced_motion=False, url=None):
        self.host.open(url or self.base + "/console/card/card.html", width, height, scheme, reduced_motion)
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
        path = os.path.join(ARTIFACTS, self.host.name, name + ".png")
        if hasattr(self.host, "screenshot"):
            self.host.screenshot(path)
        else:
            self.driver.save_screenshot(path)
        # The docs show Chromium's.
        if os.environ.get("HERALD_UPDATE_SCREENSHOTS") and name in DOCS_SCREENSHOTS and self.host.name == "chromium":
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



class MediaCases:
    """Media, YouTube, the ribbon, the call to action, closing."""

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

