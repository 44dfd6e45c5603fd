#!/usr/bin/python3
"""The card's host in WebKit (WebKitGTK, Debian's gir1.2-webkit2-4.1 through python3-gi), set up as the SDK sets up
its WKWebView — from card/webview.json, as `CardViewController` is: media inline, playing without the user's action
or not as it says, and the script message handler `herald`, native, so `window.webkit.messageHandlers.herald` is
WebKit's own. What the card posts there arrives here and is handed to the page's `window.__herald` (where the test
reads it, as it reads Chromium's); the test answers with `heraldCard.receive(text)`, as the SDK does.

WebKitWebDriver starts it (`webdriver.WebKitGTK` with this file as the browser binary) under xvfb-run: it allows
automation and gives the driver a web view of its own for each new window. The test steers what a phone's system
would through a second handler, `heraldHost`: {"scheme": "dark"|"light"}, {"reduced_motion": bool},
{"background": [r, g, b]} (the app behind the card), {"screenshot": path} (the window, as a PNG at path). The environment names:
  HERALD_CARD_HOST_SCRIPT  a file of JavaScript run in every page before its own (the test's probes)
  HERALD_CARD_HOST_PROXY   an http proxy every request but this machine's goes through (the test's stand-in for
                           YouTube's host), its TLS certificate not checked
"""
import json
import os
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import Gdk, Gtk, WebKit2  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "card", "webview.json"), encoding="utf-8") as f:
    SETTINGS = json.load(f)
with open(os.environ["HERALD_CARD_HOST_SCRIPT"], encoding="utf-8") if os.environ.get("HERALD_CARD_HOST_SCRIPT") \
        else open(os.devnull) as f:
    PROBES = f.read()

windows = []


def control(_manager, result):
    """A command from the test: the system's colour scheme, reduced motion, the app's colour behind the card."""
    command = json.loads(result.get_js_value().to_string())
    gtk = Gtk.Settings.get_default()
    if "scheme" in command:
        gtk.set_property("gtk-application-prefer-dark-theme", command["scheme"] == "dark")
    if "reduced_motion" in command:
        gtk.set_property("gtk-enable-animations", not command["reduced_motion"])
    if "screenshot" in command and windows:
        # The window as X shows it. WebKitWebDriver's own screenshot waits for a rendering update that, without
        # compositing under Xvfb, never comes while a picture or a video is on the page.
        window = windows[-1][0].get_window()
        picture = Gdk.pixbuf_get_from_window(window, 0, 0, window.get_width(), window.get_height())
        partial = command["screenshot"] + ".partial"
        picture.savev(partial, "png", [], [])
        os.rename(partial, command["screenshot"])
    if "background" in command:
        red, green, blue = command["background"]
        for _, view in windows:
            view.set_background_color(Gdk.RGBA(red / 255, green / 255, blue / 255, 1))


def web_view():
    """A web view as the SDK's, in a window of its own (its size the viewport's: no decorations under Xvfb)."""
    manager = WebKit2.UserContentManager()
    # window.__herald first, so the page's scripts find it; then the test's probes.
    manager.add_script(WebKit2.UserScript.new(
        "window.__herald = [];\n" + PROBES, WebKit2.UserContentInjectedFrames.TOP_FRAME,
        WebKit2.UserScriptInjectionTime.START, None, None))
    name = SETTINGS["message_handler"]
    manager.register_script_message_handler(name)
    manager.register_script_message_handler("heraldHost")
    manager.connect("script-message-received::heraldHost", control)
    settings = WebKit2.Settings()
    settings.set_media_playback_allows_inline(SETTINGS["inline_media_playback"])
    settings.set_media_playback_requires_user_gesture(SETTINGS["media_playback_requires_user_action"])
    settings.set_enable_developer_extras(True)
    # WKWebView with no media type requiring the user's action lets media start with sound; WebKitGTK's default
    # policy lets them start muted only, so the host says what the SDK's web view does.
    autoplay = WebKit2.AutoplayPolicy.ALLOW_WITHOUT_SOUND if SETTINGS["media_playback_requires_user_action"] \
        else WebKit2.AutoplayPolicy.ALLOW
    policies = WebKit2.WebsitePolicies(autoplay=autoplay)
    view = WebKit2.WebView(is_controlled_by_automation=True, user_content_manager=manager, settings=settings,
                           website_policies=policies)

    def received(_manager, result):
        # What the card posted, as the SDK's script handler receives it; the message's frame is the top one (the
        # handler is the top frame's only: WebKitGTK delivers no frame, the SDK drops other frames' posts).
        text = result.get_js_value().to_string()
        view.evaluate_javascript(f"window.__herald.push({json.dumps(text)})", -1, None, None, None, None, None)

    manager.connect("script-message-received::" + name, received)
    window = Gtk.Window()
    window.set_default_size(390, 844)
    window.add(view)
    window.show_all()
    windows.append((window, view))

    def closed(_view):
        windows.remove((window, view))
        window.destroy()

    view.connect("close", closed)
    return view


def automation_started(_context, session):
    info = WebKit2.ApplicationInfo()
    info.set_name("HeraldCardHost")
    info.set_version(1, 0, 0)
    session.set_application_info(info)
    session.connect("create-web-view", lambda _session: web_view())


def main():
    context = WebKit2.WebContext.get_default()
    context.set_automation_allowed(True)
    context.connect("automation-started", automation_started)
    data = context.get_website_data_manager()
    proxy = os.environ.get("HERALD_CARD_HOST_PROXY")
    if proxy:
        data.set_network_proxy_settings(
            WebKit2.NetworkProxyMode.CUSTOM,
            WebKit2.NetworkProxySettings.new(proxy, ["127.0.0.1", "localhost"]))
        data.set_tls_errors_policy(WebKit2.TLSErrorsPolicy.IGNORE)
    Gtk.main()


if __name__ == "__main__":
    sys.exit(main())
