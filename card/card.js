// Herald's notification card: one message (the device API's shape) drawn over the app, in plain JavaScript.
// No framework, no build step. The same file runs in the iOS SDK's web view, in the admin console's preview and in
// the browser tests; it talks to whoever hosts it through the bridge below (docs/sdk.md, "The notification card").
// Everything is built with dom.js's h(): elements and text nodes, never parsed markup, so message text can't inject
// anything.
"use strict";

(function () {
  const PROTOCOL_VERSION = 1;

  /** Every piece of text the card shows, in English; the host's appearance may replace any of them. */
  const STRINGS = Object.freeze({
    close: "Close",
    sandbox: "SANDBOX",
    play_video: "Play video",
    play_audio: "Play",
    pause_audio: "Pause",
    play_youtube: "Play YouTube video",
    seek: "Seek",
    video: "Video",
    youtube: "YouTube video",
    open: "Open",
    progress: "Question {current} of {total}",
    required: "Required",
    back: "Back",
    next: "Next",
    submit: "Submit",
    checking: "Checking…",
    check_failed: "Your answer couldn't be checked. Try again.",
    problem: "This answer {message}.",
    yes: "Yes",
    no: "No",
    rating: "{value} of {max}",
    not_set: "Not set",
    characters: "{count} of {max} characters",
    thanks: "Thank you!",
    thanks_text: "Your answers were sent.",
  });
  const COLORS = ["background", "text", "muted", "accent", "accent_text", "surface", "border", "error", "scrim",
    "ribbon", "ribbon_text", "focus"];
  const SIZES = { corner_radius: ["--radius", 0, 48], font_size: ["--font-size", 10, 40], headline_size: ["--headline-size", 10, 60] };
  const CHECK_TIMEOUT_MS = 15000;

  // -------------------------------------------------------------------------------------------------------------
  // The bridge: JSON text both ways. To the host through WKWebView's script handler `herald`, an Android
  // `HeraldBridge` object, or the parent window (an iframe of the same origin: the console); from the host through
  // `heraldCard.receive(text)` or, in an iframe, a message from the parent.

  function post(text) {
    const webkit = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.herald;
    if (webkit) return webkit.postMessage(text);
    if (window.HeraldBridge && typeof window.HeraldBridge.postMessage === "function") return window.HeraldBridge.postMessage(text);
    if (window.parent !== window) return window.parent.postMessage(text, location.origin);
  }

  function send(type, fields) {
    const body = { type };
    if (state.message) body.message_id = state.message.id;
    post(JSON.stringify(Object.assign(body, fields || {})));
  }

  function receive(data) {
    let input;
    try { input = typeof data === "string" ? JSON.parse(data) : data; } catch (error) { return; }
    if (!input || typeof input !== "object") return;
    if (input.type === "show") show(input.message, input.appearance);
    else if (input.type === "validation") settle(input);
  }

  window.addEventListener("message", (event) => {
    if (event.source === window.parent && window.parent !== window && event.origin === location.origin) receive(event.data);
  });

  // -------------------------------------------------------------------------------------------------------------
  // Helpers.

  /** A string of the table with its `{placeholders}` filled. */
  function t(key, values) {
    return String(state.strings[key]).replace(/\{(\w+)\}/g, (all, name) => (values && name in values ? String(values[name]) : all));
  }

  /** Seconds as m:ss (h:mm:ss from an hour). */
  function clock(seconds) {
    if (!Number.isFinite(seconds) || seconds < 0) seconds = 0;
    const whole = Math.floor(seconds);
    const hours = Math.floor(whole / 3600), minutes = Math.floor((whole % 3600) / 60), rest = whole % 60;
    const two = (n) => String(n).padStart(2, "0");
    return hours ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
  }

  const isText = (value) => typeof value === "string" && value.length > 0;

  /**
   * The 11-character video id of a YouTube link (watch, youtu.be, embed, shorts, live, v), or null: the id the
   * card plays from youtube-nocookie.com. Links naming no video open outside instead.
   */
  function youtubeVideoID(url) {
    const schemeEnd = url.indexOf("://");
    if (schemeEnd < 0) return null;
    const scheme = url.slice(0, schemeEnd).toLowerCase();
    if (scheme !== "https" && scheme !== "http") return null;
    const rest = url.slice(schemeEnd + 3);
    const hostEnd = rest.search(/[/?#]/) < 0 ? rest.length : rest.search(/[/?#]/);
    let host = rest.slice(0, hostEnd).toLowerCase();
    if (host.includes("@")) host = host.slice(host.lastIndexOf("@") + 1);
    if (host.includes(":")) host = host.slice(0, host.indexOf(":"));
    const pathAndQuery = rest.slice(hostEnd);
    const pathEnd = pathAndQuery.search(/[?#]/) < 0 ? pathAndQuery.length : pathAndQuery.search(/[?#]/);
    const segments = pathAndQuery.slice(0, pathEnd).split("/").filter(Boolean);
    const query = {};
    if (pathAndQuery[pathEnd] === "?") {
      for (const part of pathAndQuery.slice(pathEnd + 1).split("#")[0].split("&")) {
        const equals = part.indexOf("=");
        if (equals > 0 && part.indexOf("=", equals + 1) < 0) query[part.slice(0, equals)] = part.slice(equals + 1);
      }
    }
    let candidate = null;
    if (host === "youtu.be" || host === "www.youtu.be") candidate = segments[0] || null;
    else if (["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com",
      "www.youtube-nocookie.com"].includes(host)) {
      if (segments[0] === "watch") candidate = query.v || null;
      else if (segments.length >= 2 && ["embed", "shorts", "live", "v"].includes(segments[0])) candidate = segments[1];
    }
    return candidate && /^[A-Za-z0-9_-]{11}$/.test(candidate) ? candidate : null;
  }

  /** The last part of a link's path, for a file row ("menu.pdf"); the host when there is none. */
  function fileName(url) {
    try {
      const parsed = new URL(url);
      const last = parsed.pathname.split("/").filter(Boolean).pop();
      return last ? decodeURIComponent(last) : parsed.host || url;
    } catch (error) {
      return url;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // State: the message on show, its appearance, what has been reported, the survey's progress.

  const state = {
    message: null,
    strings: Object.assign({}, STRINGS),
    reported: new Set(),
    survey: null,
    checks: new Map(),
    checkCounter: 0,
  };
  const elements = {};

  /** Sends `type` once per message shown. */
  function once(type, fields) {
    if (state.reported.has(type)) return;
    state.reported.add(type);
    send(type, fields);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Appearance: colours for light and dark, radius, sizes, font, direction, language, strings.

  function applyAppearance(appearance) {
    const a = appearance && typeof appearance === "object" ? appearance : {};
    const root = document.documentElement;
    root.removeAttribute("style");
    root.lang = isText(a.lang) ? a.lang : "en";
    root.dir = a.direction === "rtl" ? "rtl" : "ltr";
    root.dataset.scheme = a.color_scheme === "light" || a.color_scheme === "dark" ? a.color_scheme : "system";
    const colors = a.colors && typeof a.colors === "object" ? a.colors : {};
    for (const scheme of ["light", "dark"]) {
      const set = colors[scheme] && typeof colors[scheme] === "object" ? colors[scheme] : {};
      for (const key of COLORS) {
        if (isText(set[key]) && CSS.supports("color", set[key])) root.style.setProperty(`--${key.replace("_", "-")}-${scheme}`, set[key]);
      }
    }
    for (const [key, [property, low, high]] of Object.entries(SIZES)) {
      if (typeof a[key] === "number" && Number.isFinite(a[key])) root.style.setProperty(property, Math.min(high, Math.max(low, a[key])) + "px");
    }
    if (isText(a.font_family) && CSS.supports("font-family", a.font_family)) root.style.setProperty("--font", a.font_family);
    state.strings = Object.assign({}, STRINGS);
    const strings = a.strings && typeof a.strings === "object" ? a.strings : {};
    for (const [key, value] of Object.entries(strings)) {
      if (typeof value === "string" && (key in STRINGS || key.startsWith("problem_"))) state.strings[key] = value;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Showing a message.

  /** Reads the device API's message shape; null when it isn't one the card can show. */
  function readMessage(m) {
    if (!m || typeof m !== "object") return null;
    const id = typeof m.id === "number" ? String(m.id) : m.id;
    if (!isText(id) || typeof m.headline !== "string" || typeof m.body !== "string") return null;
    const media = m.media && typeof m.media === "object" && isText(m.media.type) && isText(m.media.url) ? m.media : null;
    const cta = m.cta && typeof m.cta === "object" && isText(m.cta.url) ? m.cta : null;
    const questions = m.type === "survey" && Array.isArray(m.questions)
      ? m.questions.filter((q) => q && typeof q === "object" && q.id !== undefined && q.id !== null && isText(q.type))
      : [];
    return { id, headline: m.headline, body: m.body, sandbox: m.sandbox === true, media, cta,
      isSurvey: m.type === "survey", questions };
  }

  function show(rawMessage, appearance) {
    const message = readMessage(rawMessage);
    if (!message) return;
    stopMedia();
    applyAppearance(appearance);
    state.message = message;
    state.reported = new Set();
    state.checks.forEach((resolve) => resolve(null));
    state.checks.clear();
    state.survey = message.isSurvey ? { index: 0, answers: {}, touched: {}, problem: null, busy: false, done: false } : null;
    const card = elements.card;
    card.replaceChildren();
    card.classList.remove("entering");
    const media = message.media ? mediaView(message.media) : null;
    const top = media && !media.classList.contains("file") ? media : null;
    card.classList.toggle("has-media", !!top);
    elements.content = h("div", { class: "content" },
      h("h1", { class: "headline", id: "headline", dir: "auto" }, message.headline),
      h("p", { class: "body", dir: "auto" }, message.body),
      top ? null : media);
    elements.survey = message.isSurvey ? h("div", { class: "survey" }) : null;
    if (elements.survey) elements.content.append(elements.survey);
    else if (message.cta) elements.content.append(ctaButton(message.cta));
    if (message.sandbox) card.append(h("div", { class: "ribbon" }, t("sandbox")));
    card.append(h("button", { type: "button", class: "close", "aria-label": t("close"), onclick: dismiss }),
      h("div", { class: "scroll" }, top, elements.content));
    if (state.survey) renderSurvey();
    elements.scrim.hidden = false;
    card.hidden = false;
    if (!matchMedia("(prefers-reduced-motion: reduce)").matches) card.classList.add("entering");
    // Focus moves into the card, unless it is a frame of a page the user is working in (the console's preview).
    if (window.parent === window || document.hasFocus()) card.focus();
    send("displayed");
    if (message.isSurvey) send("survey_started");
  }

  function ctaButton(cta) {
    const label = isText(cta.label) && cta.label.trim() ? cta.label : cta.url;
    return h("button", { type: "button", class: "cta", onclick: () => send("cta_clicked", { url: cta.url }) }, label);
  }

  function dismiss() {
    if (!state.message || elements.card.hidden) return;
    stopMedia();
    elements.card.hidden = true;
    elements.scrim.hidden = true;
    send("dismissed");
  }

  /** Pauses every player and unloads a YouTube frame (so nothing plays behind a closed card). */
  function stopMedia() {
    document.querySelectorAll("video, audio").forEach((player) => player.pause());
    document.querySelectorAll(".media-youtube iframe").forEach((frame) => frame.remove());
  }

  // -------------------------------------------------------------------------------------------------------------
  // Media: nothing plays until Play is tapped. The first play reports media_viewed (where it started), the end
  // media_completed.

  function mediaView(media) {
    switch (media.type) {
      case "image": return h("div", { class: "media media-image" }, h("img", { src: media.url, alt: "" }));
      case "video": return videoView(media);
      case "audio": return audioView(media);
      case "youtube": {
        const id = youtubeVideoID(media.url);
        return id ? youtubeView(media, id) : fileRow(media);
      }
      default: return fileRow(media);
    }
  }

  function track(player) {
    player.addEventListener("play", () => once("media_viewed", { position_seconds: Math.round(player.currentTime * 10) / 10 }));
    player.addEventListener("ended", () => once("media_completed"));
  }

  function videoView(media) {
    const video = h("video", { src: media.url, poster: isText(media.thumbnail_url) ? media.thumbnail_url : null, preload: "metadata",
      playsinline: true, "webkit-playsinline": true, "aria-label": t("video") });
    const play = h("button", { type: "button", class: "play", "aria-label": t("play_video") });
    play.addEventListener("click", () => {
      play.remove();
      video.controls = true;
      video.play().catch(() => {});
      video.focus();
    });
    track(video);
    return h("div", { class: "media media-video" }, video, play);
  }

  function audioView(media) {
    const audio = h("audio", { src: media.url, preload: "metadata" });
    const toggle = h("button", { type: "button", class: "toggle", "aria-label": t("play_audio"), "data-state": "paused" });
    const seek = h("input", { type: "range", min: 0, max: 0, step: 1, value: 0, "aria-label": t("seek") });
    const elapsed = h("span", { class: "elapsed" }, clock(0));
    const total = h("span", { class: "total" }, clock(0));
    const refresh = () => {
      const duration = Number.isFinite(audio.duration) ? audio.duration : 0;
      seek.max = String(duration);
      seek.value = String(audio.currentTime);
      elapsed.textContent = clock(audio.currentTime);
      total.textContent = clock(duration);
      seek.setAttribute("aria-valuetext", `${clock(audio.currentTime)} / ${clock(duration)}`);
    };
    audio.addEventListener("loadedmetadata", refresh);
    audio.addEventListener("durationchange", refresh);
    audio.addEventListener("timeupdate", refresh);
    const playing = (on) => {
      toggle.dataset.state = on ? "playing" : "paused";
      toggle.setAttribute("aria-label", t(on ? "pause_audio" : "play_audio"));
    };
    audio.addEventListener("play", () => playing(true));
    audio.addEventListener("pause", () => playing(false));
    audio.addEventListener("ended", () => playing(false));
    toggle.addEventListener("click", () => (audio.paused ? audio.play().catch(() => {}) : audio.pause()));
    seek.addEventListener("input", () => {
      audio.currentTime = Number(seek.value);
      elapsed.textContent = clock(Number(seek.value));
    });
    track(audio);
    const art = isText(media.thumbnail_url) ? h("img", { src: media.thumbnail_url, alt: "" }) : null;
    return h("div", { class: "media media-audio" }, art, audio,
      h("div", { class: "player" }, toggle, h("div", { class: "track" }, seek, h("div", { class: "time" }, elapsed, total))));
  }

  function youtubeView(media, id) {
    const poster = isText(media.thumbnail_url) ? h("img", { src: media.thumbnail_url, alt: "" }) : null;
    const play = h("button", { type: "button", class: "play", "aria-label": t("play_youtube") });
    const box = h("div", { class: "media media-youtube" }, poster, play, h("span", { class: "badge", "aria-hidden": "true" }, "YouTube"));
    play.addEventListener("click", () => {
      const frame = h("iframe", {
        src: `https://www.youtube-nocookie.com/embed/${id}?autoplay=1&playsinline=1&rel=0`, title: t("youtube"),
        allow: "autoplay; encrypted-media; fullscreen; picture-in-picture", allowfullscreen: true,
        referrerpolicy: "strict-origin-when-cross-origin",
        sandbox: "allow-scripts allow-same-origin allow-presentation allow-popups allow-popups-to-escape-sandbox",
      });
      box.replaceChildren(frame);
      once("media_viewed", { position_seconds: 0 });
      frame.focus();
    });
    return box;
  }

  function fileRow(media) {
    const name = fileName(media.url);
    const kind = media.type === "youtube" ? "link" : media.type;
    return h("button", { type: "button", class: "file", "data-kind": media.type, "aria-label": `${t("open")} ${name}`, onclick: () => {
      once("media_viewed", { position_seconds: 0 });
      send("open_url", { url: media.url });
    } }, h("span", { class: "file-icon", "aria-hidden": "true" }, kind.slice(0, 4)), h("span", { class: "file-name" }, name),
    h("span", { class: "file-open", "aria-hidden": "true" }, t("open")));
  }

  // -------------------------------------------------------------------------------------------------------------
  // The survey: one question per step, progress, Back and Next. The card never judges an answer itself: before
  // Next and before submitting it asks its host (`validate`), which runs Herald's SurveyValidator.

  function answers() {
    const s = state.survey;
    return state.message.questions.filter((q) => s.answers[q.id] !== undefined && s.answers[q.id] !== null)
      .map((q) => ({ question_id: String(q.id), value: s.answers[q.id] }));
  }

  /** Asks the host to check the answers; resolves with its problems, or null when no answer came. */
  function check() {
    const id = String(++state.checkCounter);
    return new Promise((resolve) => {
      state.checks.set(id, resolve);
      send("validate", { request_id: id, answers: answers() });
      setTimeout(() => { if (state.checks.delete(id)) resolve(null); }, CHECK_TIMEOUT_MS);
    });
  }

  function settle(reply) {
    const id = String(reply.request_id);
    const resolve = state.checks.get(id);
    if (!resolve) return;
    state.checks.delete(id);
    resolve(Array.isArray(reply.problems) ? reply.problems.filter((p) => p && typeof p === "object") : null);
  }

  function problemText(problem) {
    const own = state.strings["problem_" + problem.code];
    return typeof own === "string" ? own : t("problem", { message: String(problem.message || "") });
  }

  async function next() {
    const s = state.survey, questions = state.message.questions;
    if (s.busy || s.done) return;
    const question = questions[s.index];
    s.busy = true;
    renderSurvey();
    const problems = await check();
    s.busy = false;
    if (state.survey !== s) return;
    if (problems === null) {
      s.problem = { question_id: question ? question.id : null, message: "", text: t("check_failed") };
      return renderSurvey(true);
    }
    const known = (p) => p.question_id !== null && p.question_id !== undefined && questions.some((q) => String(q.id) === String(p.question_id));
    const own = question && problems.find((p) => String(p.question_id) === String(question.id));
    if (own) {
      s.problem = own;
      return renderSurvey(true);
    }
    if (question && s.index + 1 < questions.length) {
      s.index += 1;
      s.problem = null;
      return renderSurvey(false, true);
    }
    const first = problems[0];
    if (first) {
      if (known(first)) s.index = questions.findIndex((q) => String(q.id) === String(first.question_id));
      s.problem = first;
      return renderSurvey(true);
    }
    s.done = true;
    s.problem = null;
    send("survey_submitted", { answers: answers() });
    renderSurvey(false, true);
  }

  function back() {
    const s = state.survey;
    if (s.busy || s.done || s.index === 0) return;
    s.index -= 1;
    s.problem = null;
    renderSurvey(false, true);
  }

  function setAnswer(question, value) {
    const s = state.survey;
    s.answers[question.id] = value;
    if (s.problem && String(s.problem.question_id) === String(question.id)) {
      s.problem = null;
      const shown = elements.survey.querySelector(".problem");
      if (shown) shown.remove();
      elements.survey.querySelectorAll("[aria-invalid]").forEach((el) => { el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby"); });
    }
  }

  function renderSurvey(focusProblem, focusQuestion) {
    const s = state.survey, questions = state.message.questions, box = elements.survey;
    const total = questions.length;
    const current = s.done ? total : Math.min(s.index + 1, total);
    const share = total ? (s.done ? 1 : s.index / total) : 1;
    const progress = h("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": total,
      "aria-valuenow": s.done ? total : s.index, "aria-valuetext": t("progress", { current, total }), "aria-label": t("progress", { current, total }) },
    h("span", { class: "bar" }));
    progress.firstChild.style.width = (share * 100).toFixed(1) + "%";
    const progressText = h("p", { class: "progress-text", "aria-hidden": "true" }, t("progress", { current, total }));
    if (s.done || !total) {
      const heading = h("h2", { class: "thanks", tabindex: -1 }, t("thanks"));
      box.replaceChildren(progressText, progress, heading, h("p", { class: "thanks-text" }, t("thanks_text")));
      if (state.message.cta) box.append(ctaButton(state.message.cta));
      if (focusQuestion) heading.focus();
      return;
    }
    const question = questions[s.index];
    const problemID = "problem-" + s.index;
    const problem = s.problem && (s.problem.question_id === null || s.problem.question_id === undefined
      || String(s.problem.question_id) === String(question.id)) ? s.problem : null;
    const input = questionInput(question, s.index, problem ? problemID : null);
    const heading = h("legend", { class: "question-text", id: "question-" + s.index, tabindex: -1, dir: "auto" }, question.text,
      question.required ? h("span", { class: "required" }, " · " + t("required")) : null);
    const form = h("form", { class: "wizard", novalidate: true },
      h("fieldset", { class: "question", "data-type": question.type, "aria-describedby": problem ? problemID : null }, heading, input),
      problem ? h("p", { class: "problem", id: problemID, role: "alert" }, problem.text || problemText(problem)) : null,
      h("div", { class: "nav" },
        s.index > 0 ? h("button", { type: "button", class: "back", onclick: back }, t("back")) : null,
        h("button", { type: "submit", class: "next", "aria-busy": s.busy ? "true" : null },
          s.busy ? t("checking") : t(s.index + 1 < total ? "next" : "submit"))));
    form.addEventListener("submit", (event) => { event.preventDefault(); next(); });
    box.replaceChildren(progressText, progress, form);
    if (focusProblem) (form.querySelector("[aria-invalid='true']") || form.querySelector("input, textarea") || heading).focus();
    else if (focusQuestion) heading.focus();
  }

  /** The input for one question, showing its current answer. */
  function questionInput(question, index, problemID) {
    const s = state.survey;
    const value = s.answers[question.id];
    const name = "answer-" + index;
    const invalid = (el) => {
      if (problemID) { el.setAttribute("aria-invalid", "true"); el.setAttribute("aria-describedby", problemID); }
      return el;
    };
    const choice = (type, inputValue, checked, label, onChange, extra) => h("label", { class: "option" },
      h("input", Object.assign({ type, name, value: inputValue, checked, onchange: onChange }, extra || {})), h("span", { dir: "auto" }, label));
    const choices = Array.isArray(question.choices) ? question.choices.filter((c) => c && c.id !== undefined) : [];
    switch (question.type) {
      case "single_choice":
        return invalid(h("div", { class: "options", role: "radiogroup", "aria-labelledby": "question-" + index },
          choices.map((c) => choice("radio", String(c.id), String(value) === String(c.id), c.text,
            () => setAnswer(question, String(c.id))))));
      case "multiple_choice": {
        const selected = Array.isArray(value) ? value.map(String) : [];
        return invalid(h("div", { class: "options", role: "group", "aria-labelledby": "question-" + index },
          choices.map((c) => choice("checkbox", String(c.id), selected.includes(String(c.id)), c.text, (event) => {
            const now = new Set(Array.isArray(s.answers[question.id]) ? s.answers[question.id].map(String) : []);
            if (event.target.checked) now.add(String(c.id)); else now.delete(String(c.id));
            setAnswer(question, choices.map((x) => String(x.id)).filter((id) => now.has(id)));
          }))));
      }
      case "rating": {
        const low = Number.isInteger(question.min) ? question.min : 1, high = Number.isInteger(question.max) ? question.max : 5;
        const options = [];
        for (let n = low; n <= high && options.length < 101; n++) {
          options.push(choice("radio", String(n), value === n, String(n), () => setAnswer(question, n), { "aria-label": t("rating", { value: n, max: high }) }));
        }
        return invalid(h("div", { class: "options scale", role: "radiogroup", "aria-labelledby": "question-" + index }, options));
      }
      case "boolean":
        return invalid(h("div", { class: "options", role: "radiogroup", "aria-labelledby": "question-" + index },
          choice("radio", "true", value === true, t("yes"), () => setAnswer(question, true)),
          choice("radio", "false", value === false, t("no"), () => setAnswer(question, false))));
      case "number": {
        const field = invalid(h("input", { type: "text", inputmode: "decimal", class: "answer-number", autocomplete: "off",
          "aria-labelledby": "question-" + index, value: value === undefined || value === null ? "" : String(value) }));
        field.addEventListener("input", () => {
          const text = field.value.trim();
          const number = Number(text.replace(",", "."));
          setAnswer(question, text === "" ? null : Number.isFinite(number) ? number : text);
        });
        return field;
      }
      case "slider": {
        const low = Number.isFinite(question.min) ? question.min : 0, high = Number.isFinite(question.max) ? question.max : 10;
        const set = typeof value === "number";
        const output = h("output", { "aria-live": "polite" }, set ? String(value) : t("not_set"));
        const range = invalid(h("input", { type: "range", min: low, max: high, step: question.allow_decimals ? "0.1" : "1",
          value: set ? value : (low + high) / 2, "aria-labelledby": "question-" + index, "aria-valuetext": set ? null : t("not_set") }));
        range.addEventListener("input", () => {
          const number = Number(range.value);
          output.textContent = String(number);
          range.removeAttribute("aria-valuetext");
          setAnswer(question, number);
        });
        return h("div", { class: "slider" }, range, output);
      }
      case "open_ended": {
        const max = Number.isInteger(question.max_length) ? question.max_length : 2000;
        const area = invalid(h("textarea", { class: "answer-text", "aria-labelledby": "question-" + index, rows: 4, dir: "auto" }));
        area.value = typeof value === "string" ? value : "";
        const counter = h("span", { class: "counter", "aria-live": "off" }, t("characters", { count: [...area.value].length, max }));
        area.addEventListener("input", () => {
          counter.textContent = t("characters", { count: [...area.value].length, max });
          setAnswer(question, area.value);
        });
        return h("div", {}, area, counter);
      }
      default:
        return h("p", { class: "muted" }, "");
    }
  }

  // -------------------------------------------------------------------------------------------------------------

  function start() {
    elements.card = document.getElementById("card");
    elements.scrim = document.getElementById("scrim");
    elements.card.closest(".frame").addEventListener("click", (event) => { if (event.target === event.currentTarget) dismiss(); });
    document.addEventListener("keydown", (event) => { if (event.key === "Escape") dismiss(); });
    elements.card.addEventListener("animationend", () => elements.card.classList.remove("entering"));
    window.heraldCard = Object.freeze({ receive, version: PROTOCOL_VERSION, strings: STRINGS });
    post(JSON.stringify({ type: "ready", version: PROTOCOL_VERSION }));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
