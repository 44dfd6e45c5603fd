"""The card's survey wizard, its appearance, direction and strings, accessibility, the on-screen keyboard and the
SDK's one-page document; mixed into each engine's test case (test_card.py) with card_cases.CardCase.
"""
import functools
import http.server
import os
import re
import shutil
import tempfile
import threading

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import ROOT, call
from card_cases import PHONES, SCHEMES, generator


class SurveyCases:
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

    # -- the on-screen keyboard -------------------------------------------------------------------------------------

    def test_a_focused_answer_stays_above_the_on_screen_keyboard(self):
        """A phone's keyboard shrinks the visual viewport, not the page (simulated: PROBES' `__keyboard`): the card
        fits into what is left and the focused field is scrolled into view there; lowered, the card has the screen
        again."""
        height, keyboard = 844, 336
        self.open_card(390, height)
        self.show(self.message("kb-1", {"type": "video", "url": self.media["video.mp4"],
                                        "thumbnail_url": self.media["poster.png"]}, type="survey",
                               questions=[self.SURVEY[6]], body="One question, then we let you go. " * 3))
        field = self.find(".answer-text")
        field.click()
        self.assertEqual(self.driver.switch_to.active_element, field)
        self.js("window.__keyboard(arguments[0])", keyboard)
        visible = height - keyboard
        self.wait(lambda: (lambda r: 0 <= r["top"] and r["bottom"] <= visible)(self.rect(".answer-text")),
                  message="the field above the keyboard")
        self.assertLessEqual(self.rect("#card")["bottom"], visible, "the card above the keyboard")
        field.send_keys("Hot")
        self.assertEqual(self.find(".counter").text, "3 of 20 characters")
        self.screenshot("keyboard")
        self.js("window.__keyboard(0)")
        self.wait(lambda: self.rect("#card")["bottom"] > visible, message="the card has the screen again")

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

