"""The notification card (card/) in real browsers, Chromium and WebKit, driven by Selenium at phone sizes (390×844 and
412×915), light and dark: every medium, every question type, the bridge's messages, appearance, accessibility, the
on-screen keyboard, and the SDK's one-page document.

The card is loaded exactly as the console serves it — `/console/card/card.html` from a real `herald serve` (the
debug build in .build, else the release one) on a free port, under its Content-Security-Policy — and each engine
plays its host the way the SDK's web view does (card_hosts.py): what the card posts is recorded, `heraldCard.receive
(text)` answers. In WebKit (WebKitGTK, webkit_host.py) the web view is set up from card/webview.json as the SDK's
`CardViewController` is, and `window.webkit.messageHandlers.herald` is WebKit's own handler. Survey answers are
checked as in the console: each `validate` is forwarded to `POST /api/admin/surveys/validate`, Herald's own
SurveyValidator. Media come from Herald's media host (same origin, byte ranges); no other host answers, but for a
stand-in of YouTube's player in WebKit. The SDK's one-page document (`CardAssets.document`, made by
scripts/generate-console) is loaded too, under its own <meta> policy.

Screenshots go to Tests/Card/artifacts/chromium/ and Tests/Card/artifacts/webkit/ (ignored by git); with
HERALD_UPDATE_SCREENSHOTS=1 Chromium's that the docs show are copied to docs/ as well.

Run from the repository root after `swift build`: python3 -m unittest Tests/Card/test_card.py
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Browser"))
sys.path.insert(0, HERE)
from card_cases import CardCase, MediaCases  # noqa: E402
from card_hosts import ChromiumHost, WebKitHost  # noqa: E402
from survey_cases import SurveyCases  # noqa: E402


class CardInChromium(CardCase, MediaCases, SurveyCases, unittest.TestCase):
    Host = ChromiumHost


class CardInWebKit(CardCase, MediaCases, SurveyCases, unittest.TestCase):
    Host = WebKitHost

    def test_youtube_plays_on_the_first_tap_in_the_sdks_web_view(self):
        """One tap on Play: the card makes YouTube's frame, and the player in it starts by itself (`autoplay=1`),
        which the web view allows only when media may play without the user's action (card/webview.json)."""
        youtube = self.host.youtube
        self.open_card()
        self.show(self.message("y-1", {"type": "youtube", "url": "https://youtu.be/dQw4w9WgXcQ",
                                       "thumbnail_url": self.media["poster.png"]}))
        self.find(".media-youtube .play").click()
        frame = self.find(".media-youtube iframe")
        self.wait(lambda: youtube.embeds, message="the player's page asked for")
        self.assertTrue(youtube.embeds[0].startswith("/embed/dQw4w9WgXcQ?autoplay=1"), youtube.embeds)
        self.driver.switch_to.frame(frame)
        try:
            self.wait(lambda: self.js("return window.__autoplay") != "pending", message="the player tried to start")
            self.assertEqual(self.js("return window.__autoplay"), "playing")
            self.wait(lambda: self.js("return document.querySelector('video').currentTime") > 0.3,
                      message="the video plays")
        finally:
            self.driver.switch_to.default_content()
        self.screenshot("youtube-playing")
        self.assertEqual([m["type"] for m in self.events("y-1")], ["displayed", "media_viewed"])


if __name__ == "__main__":
    unittest.main()
