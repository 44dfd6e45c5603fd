// Herald's admin console: plain JavaScript over the admin API (docs/openapi.json). No framework, no build step.
// The admin token lives in sessionStorage (this tab only) and travels in the Authorization header, never in a URL.
"use strict";

const TOKEN_KEY = "herald.adminToken";
const PUSH_LIMIT = 4096; // APNs payload limit, bytes
const QUESTION_TYPES = ["single_choice", "multiple_choice", "rating", "boolean", "number", "slider", "open_ended"];

// ---------------------------------------------------------------------------------------------------------------
// DOM helpers: everything is built with createElement and text nodes (never parsed markup), so API text can't
// inject anything: h() comes from the card's dom.js (/console/card/dom.js), the one copy the card uses too.

const svgNS = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, String(value));
  for (const child of children.flat()) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

let fieldCounter = 0;
/** A labelled input; `name` is the API field it edits (its errors are shown under it). */
function field(label, name, attrs = {}, kind = "input") {
  const id = "f" + (++fieldCounter);
  const input = kind === "textarea" ? h("textarea", { id, name, "data-field": name, ...attrs })
    : kind === "select" ? h("select", { id, name, "data-field": name, ...attrs.select }, attrs.options || [])
    : h("input", { id, name, "data-field": name, type: "text", ...attrs });
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}

function option(value, text, selected) { return h("option", { value, selected: !!selected }, text); }

function toast(message) {
  const p = h("p", {}, message);
  document.getElementById("toast").append(p);
  setTimeout(() => p.remove(), 4000);
}

function debounce(fn, ms) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

function formatTime(iso) { return iso ? new Date(iso).toLocaleString() : "—"; }
function statusSpan(status) { return h("span", { class: "status-" + status }, status); }

// ---------------------------------------------------------------------------------------------------------------
// The API.

class APIError extends Error {
  constructor(status, body) {
    super(APIError.summary(body) || "HTTP " + status);
    this.status = status;
    this.errors = (body && body.errors) || {};
  }
  static summary(body) {
    if (!body || !body.errors) return "";
    return Object.entries(body.errors).map(([k, v]) => (k === "base" ? "" : k + " ") + v.join(", ")).join("; ");
  }
}

async function api(method, path, body, options = {}) {
  const headers = { Authorization: "Bearer " + sessionStorage.getItem(TOKEN_KEY) };
  let payload;
  if (options.raw !== undefined) {
    payload = options.raw;
    headers["Content-Type"] = options.contentType || "application/octet-stream";
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, { method, headers, body: payload, cache: "no-store" });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (response.status === 401 && !options.signingIn) { signOut("Your session ended: sign in again."); }
  if (!response.ok) throw new APIError(response.status, json);
  return json;
}

/** Shows an API error on the form: each field's messages next to its input, the rest in the form's error box. */
function showErrors(form, error) {
  clearErrors(form);
  const box = form.querySelector(".form-error");
  const leftover = [];
  const errors = error instanceof APIError ? error.errors : { base: [String(error.message || error)] };
  let first = null;
  for (const [name, messages] of Object.entries(errors)) {
    const input = findField(form, name);
    if (input) {
      const id = input.id + "-error";
      const p = h("p", { class: "field-error", id, "data-error-for": name }, messages.join(", "));
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id);
      input.insertAdjacentElement("afterend", p);
      first = first || input;
    } else {
      leftover.push((name === "base" ? "" : name + ": ") + messages.join(", "));
    }
  }
  if (box) box.textContent = leftover.join(" · ");
  else if (leftover.length) toast(leftover.join(" · "));
  (first || box)?.focus?.();
}

/** The input an error's field names: exactly, else its closest parent path (`message.cta.url` → `cta.url`…). */
function findField(form, name) {
  const candidates = [name, name.replace(/^message\./, ""), name.replace(/\[\d+\]/g, "")];
  for (const c of candidates) {
    const found = form.querySelector(`[data-field="${CSS.escape(c)}"]`);
    if (found) return found;
  }
  const parts = name.split(".");
  while (parts.length > 1) {
    parts.pop();
    const found = form.querySelector(`[data-field="${CSS.escape(parts.join("."))}"]`);
    if (found) return found;
  }
  return null;
}

function clearErrors(form) {
  form.querySelectorAll(".field-error").forEach((p) => p.remove());
  form.querySelectorAll("[aria-invalid]").forEach((el) => { el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby"); });
  const box = form.querySelector(".form-error");
  if (box) box.textContent = "";
}

function formError() { return h("div", { class: "form-error", role: "alert", tabindex: "-1" }); }

/** Runs `action` for a form's submit, its errors shown on the form. */
function onSubmit(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const buttons = form.querySelectorAll("button[type=submit]");
    buttons.forEach((b) => (b.disabled = true));
    try {
      clearErrors(form);
      await action(event.submitter);
    } catch (error) {
      showErrors(form, error);
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Sign-in and routing.

const view = () => document.getElementById("view");
let pollTimer = null;

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  document.getElementById("sign-in").hidden = false;
  document.getElementById("nav").hidden = true;
  document.getElementById("sign-out").hidden = true;
  view().replaceChildren();
  if (message) toast(message);
}

async function signIn(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  await api("GET", "/api/admin/businesses?limit=1", undefined, { signingIn: true });
}

function showApp() {
  document.getElementById("sign-in").hidden = true;
  document.getElementById("nav").hidden = false;
  document.getElementById("sign-out").hidden = false;
  route();
}

const routes = [
  [/^#\/businesses$/, pageBusinesses],
  [/^#\/b\/(\d+)$/, pageBusiness],
  [/^#\/b\/(\d+)\/templates$/, pageTemplates],
  [/^#\/b\/(\d+)\/compose$/, pageComposer],
  [/^#\/b\/(\d+)\/campaigns$/, pageCampaigns],
  [/^#\/b\/(\d+)\/campaigns\/(\d+)$/, pageReport],
  [/^#\/b\/(\d+)\/geofences$/, pageGeofences],
  [/^#\/b\/(\d+)\/devices$/, pageDevices],
];

async function route() {
  if (!sessionStorage.getItem(TOKEN_KEY)) return signOut();
  clearInterval(pollTimer);
  const hash = location.hash || "#/businesses";
  const businessNav = document.getElementById("business-nav");
  const match = hash.match(/^#\/b\/(\d+)/);
  businessNav.replaceChildren(...(match ? [
    ["", "Credentials"], ["/templates", "Templates"], ["/compose", "Compose"], ["/campaigns", "Campaigns"],
    ["/geofences", "Geofences"], ["/devices", "Devices"],
  ].map(([suffix, text]) => h("a", { href: `#/b/${match[1]}${suffix}` }, text)) : []));
  document.querySelectorAll("#nav a").forEach((a) => {
    if (a.getAttribute("href") === hash) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  });
  for (const [pattern, page] of routes) {
    const m = hash.match(pattern);
    if (m) {
      const root = h("div", {});
      view().replaceChildren(root);
      try { await page(root, ...m.slice(1)); } catch (error) { root.append(h("p", { class: "form-error" }, error.message)); }
      const heading = root.querySelector("h1");
      if (heading) { heading.tabIndex = -1; heading.focus(); }
      return;
    }
  }
  location.hash = "#/businesses";
}

// ---------------------------------------------------------------------------------------------------------------
// Businesses and credentials.

async function pageBusinesses(root) {
  root.append(h("h1", {}, "Businesses"));
  const list = await api("GET", "/api/admin/businesses?limit=500");
  const rows = list.data.map((b) => h("tr", {},
    h("td", {}, h("a", { href: `#/b/${b.id}` }, b.name)), h("td", { class: "mono" }, b.client),
    h("td", {}, b.apns ? statusSpan(b.apns.status) : "none"), h("td", {}, b.fcm ? statusSpan(b.fcm.status) : "none")));
  root.append(h("div", { class: "card table-wrap" }, list.data.length
    ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Client id"), h("th", {}, "APNs"), h("th", {}, "FCM"))), h("tbody", {}, rows))
    : h("p", {}, "No business yet.")));
  const form = h("form", { class: "card", novalidate: true, id: "create-business" },
    h("h2", {}, "New business"), formError(), field("Name", "name", { required: true }),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Create business")));
  root.append(form);
  onSubmit(form, async () => {
    const created = await api("POST", "/api/admin/businesses", { name: form.elements.name.value });
    const keys = h("div", { class: "card", id: "business-keys" }, h("h2", {}, `${created.name} created`),
      h("p", {}, "These keys are shown once: copy them now."),
      ...["client", "secret", "pos_key", "api_key", "sandbox_api_key"].map((k) => h("p", {}, h("strong", {}, k + ": "), h("span", { class: "secret" }, created[k]))),
      h("a", { href: `#/b/${created.id}` }, "Set up its push credentials →"));
    form.replaceWith(keys);
  });
}

async function pageBusiness(root, id) {
  const business = await api("GET", `/api/admin/businesses/${id}`);
  root.append(h("h1", {}, business.name), h("p", { class: "muted" }, "Client id ", h("code", {}, business.client)));

  const credential = (c, keys) => c
    ? h("dl", { class: "credential" }, h("dt", {}, "Status"), h("dd", {}, statusSpan(c.status), c.broken_reason ? " — " + c.broken_reason : ""),
      ...keys.filter((k) => c[k]).map((k) => [h("dt", {}, k), h("dd", { class: "mono" }, c[k])]),
      h("dt", {}, "Updated"), h("dd", {}, formatTime(c.updated_at)))
    : h("p", { class: "muted" }, "Not set: pushes wait until it is.");

  const apns = h("form", { class: "card", id: "apns-form", novalidate: true },
    h("h2", {}, "Apple (APNs)"), h("div", { id: "apns-status" }, credential(business.apns, ["environment", "key_id", "team_id", "topic"])),
    h("h3", {}, "Upload a .p8 key"), formError(),
    field(".p8 key file", "key_p8", { type: "file", accept: ".p8,.pem,text/plain" }),
    h("div", { class: "row" }, field("Key id", "key_id", { placeholder: "ABC123DEFG", value: business.apns?.key_id || "" }),
      field("Team id", "team_id", { placeholder: "DEF123GHIJ", value: business.apns?.team_id || "" })),
    h("div", { class: "row" }, field("Topic (bundle id)", "topic", { placeholder: "com.example.app", value: business.apns?.topic || "" }),
      field("Environment", "environment", { options: [option("production", "production", business.apns?.environment !== "sandbox"), option("sandbox", "sandbox", business.apns?.environment === "sandbox")] }, "select")),
    h("p", { class: "muted" }, "The key is sealed in the database and never shown again."),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Save APNs key")));
  const keyInput = apns.elements.key_p8;
  keyInput.addEventListener("change", () => {
    const match = keyInput.files[0]?.name.match(/AuthKey_([A-Z0-9]{10})\.p8$/);
    if (match && !apns.elements.key_id.value) apns.elements.key_id.value = match[1];
  });
  onSubmit(apns, async () => {
    const file = keyInput.files[0];
    const body = { key_p8: file ? await file.text() : "", key_id: apns.elements.key_id.value, team_id: apns.elements.team_id.value,
      topic: apns.elements.topic.value, environment: apns.elements.environment.value };
    await api("PUT", `/api/admin/businesses/${id}/apns`, body);
    toast("APNs key saved");
    route();
  });

  const fcm = h("form", { class: "card", id: "fcm-form", novalidate: true },
    h("h2", {}, "Google (FCM)"), h("div", { id: "fcm-status" }, credential(business.fcm, ["project_id", "client_email", "private_key_id", "token_uri"])),
    h("h3", {}, "Upload a service-account file"), formError(),
    field("Service-account JSON file", "service_account", { type: "file", accept: ".json,application/json" }),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Save service account")));
  onSubmit(fcm, async () => {
    const file = fcm.elements.service_account.files[0];
    await api("PUT", `/api/admin/businesses/${id}/fcm`, { service_account: file ? await file.text() : null });
    toast("Service account saved");
    route();
  });
  root.append(h("div", { class: "row" }, apns, fcm), await identityKeys(id));
}

// ---------------------------------------------------------------------------------------------------------------
// The push preview: an iPhone and an Android phone, light or dark, collapsed or expanded.

function previewPane(state) {
  const theme = h("select", { id: "preview-theme", "aria-label": "Preview theme" }, option("light", "Light"), option("dark", "Dark"));
  const expanded = h("input", { type: "checkbox", id: "preview-expanded" });
  const phones = h("div", { class: "phones", id: "phones" });
  const meterBar = h("span");
  const meter = h("div", { class: "meter", role: "meter", "aria-label": "Push payload size", "aria-valuemin": 0, "aria-valuemax": PUSH_LIMIT }, meterBar);
  const meterText = h("p", { class: "muted", id: "budget-text" });
  const pane = h("div", { class: "preview-pane card", id: "preview" },
    h("h2", {}, "Preview"),
    h("div", { class: "preview-controls" }, h("label", { class: "inline", for: "preview-theme" }, "Theme"), theme,
      h("label", { class: "inline", for: "preview-expanded" }, expanded, "Expanded (long-press) with image")),
    phones, h("h3", {}, "Payload budget (APNs 4 KB)"), meter, meterText);

  function notification(kind, p) {
    const image = p.imageURL && expanded.checked ? h("img", { class: "image", src: p.imageURL, alt: "" }) : null;
    const thumb = p.imageURL && !expanded.checked ? h("img", { class: "thumb", src: p.imageURL, alt: "" }) : null;
    return h("div", { class: "notif", "data-kind": kind },
      h("div", { class: "app" }, h("span", { class: "icon" }), h("span", {}, kind === "ios" ? (p.app || "APP").toUpperCase() : (p.app || "App") + " · now"), kind === "ios" ? h("span", { class: "when" }, "now") : null),
      thumb, h("div", { class: "title" }, p.title || "Headline"), p.subtitle ? h("div", { class: "subtitle" }, p.subtitle) : null,
      h("div", { class: "body" }, p.body || "Body"), image,
      p.cta && expanded.checked ? h("span", { class: "cta" }, p.cta) : null);
  }
  function render() {
    const p = state();
    const t = theme.value;
    const mode = expanded.checked ? "expanded" : "collapsed";
    phones.replaceChildren(
      h("div", { class: `phone ios ${t} ${mode}`, "data-testid": "iphone", "aria-label": `iPhone, ${t}, ${mode}`, role: "img" },
        h("div", { class: "label" }, "iPhone"), h("div", { class: "clock" }, "9:41"), notification("ios", p)),
      h("div", { class: `phone android ${t} ${mode}`, "data-testid": "android", "aria-label": `Android, ${t}, ${mode}`, role: "img" },
        h("div", { class: "label" }, "Android"), h("div", { class: "clock" }, "9:41"), notification("android", p)));
    const size = new TextEncoder().encode(JSON.stringify(p.payload || {})).length;
    const share = Math.min(1, size / PUSH_LIMIT);
    meterBar.style.width = (share * 100).toFixed(1) + "%";
    meter.className = "meter" + (size > PUSH_LIMIT ? " over" : share > 0.8 ? " warn" : "");
    meter.setAttribute("aria-valuenow", size);
    meterText.textContent = `${size} of ${PUSH_LIMIT} bytes (${Math.round(share * 100)}%)` + (size > PUSH_LIMIT ? " — too large: Apple refuses it" : "");
  }
  theme.addEventListener("change", render);
  expanded.addEventListener("change", render);
  return { pane, render, theme, expanded };
}

// ---------------------------------------------------------------------------------------------------------------
// The in-app card: the SDK's own card (card/, served at /console/card/), framed and driven through the card's bridge
// as the SDK drives it. Survey answers are checked by the server's validator (POST /api/admin/surveys/validate), the
// one the SDK runs in the app; what the card reports is listed under it, and its links are shown, never followed.

function cardPreview(message, scheme) {
  const frame = h("iframe", { src: "/console/card/card.html", title: "In-app card preview", class: "card-frame", id: "card-frame" });
  const events = h("ol", { class: "card-events muted", id: "card-events", "aria-label": "What the card reported" });
  const again = h("button", { type: "button", class: "secondary", id: "card-again" }, "Show again");
  const pane = h("div", { class: "card-preview" }, h("h3", {}, "In-app card"), frame,
    h("div", { class: "actions" }, again), h("p", { class: "muted" }, "What the card reported:"), events);
  let ready = false;
  let shown = "";
  const post = (body) => frame.contentWindow.postMessage(JSON.stringify(body), location.origin);
  // Unfinished questions can't be checked: the card then says so instead of the validator's words.
  const strings = { problem_invalid_survey: "Finish the survey's questions in the form to try it here." };
  function show(again) {
    if (!ready) return;
    const body = { type: "show", message: message(), appearance: { color_scheme: scheme(), strings } };
    const text = JSON.stringify(body);
    if (!again && text === shown) return;
    shown = text;
    events.replaceChildren();
    post(body);
  }
  function describe(posted) {
    const details = { media_viewed: ` at ${posted.position_seconds} s`, cta_clicked: ` — opens ${posted.url}`,
      open_url: ` — opens ${posted.url}`, survey_submitted: " " + JSON.stringify(posted.answers) }[posted.type] || "";
    return h("li", { "data-type": posted.type }, posted.type + details);
  }
  async function received(event) {
    if (!frame.isConnected) return window.removeEventListener("message", received);
    if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
    let posted;
    try { posted = JSON.parse(event.data); } catch (error) { return; }
    if (posted.type === "ready") {
      ready = true;
      return show(true);
    }
    if (posted.type !== "validate") return events.append(describe(posted));
    let problems;
    try {
      problems = (await api("POST", "/api/admin/surveys/validate", { questions: message().questions, answers: posted.answers })).problems;
    } catch (error) {
      problems = [{ question_id: null, code: "invalid_survey", message: error.message }];
    }
    post({ type: "validation", request_id: posted.request_id, problems });
  }
  window.addEventListener("message", received);
  again.addEventListener("click", () => show(true));
  return { pane, show };
}

// ---------------------------------------------------------------------------------------------------------------
// Templates with a live preview (rendered by the server: POST …/templates/{event}/preview).

async function pageTemplates(root, id) {
  const [business, templates] = await Promise.all([api("GET", `/api/admin/businesses/${id}`), api("GET", `/api/admin/businesses/${id}/templates`)]);
  root.append(h("h1", {}, `Templates — ${business.name}`));
  const picker = h("select", { id: "template-event" }, templates.map((t) => option(t.event, t.event + (t.customized ? " (customized)" : ""))));
  root.append(h("div", { class: "card" }, h("label", { for: "template-event" }, "Event"), picker));
  const holder = h("div");
  root.append(holder);
  let rendered = { title: "", body: "" };
  async function show() {
    const t = templates.find((x) => x.event === picker.value);
    const form = h("form", { class: "card", novalidate: true, id: "template-form" }, formError(),
      field("Title", "title", { value: t.title }), field("Subtitle", "subtitle", { value: t.subtitle }),
      field("Body", "body", {}, "textarea"), field("Sound", "sound", { value: t.sound }),
      h("label", { class: "inline" }, h("input", { type: "checkbox", name: "enabled", checked: t.enabled }), "Enabled"),
      h("p", { class: "muted" }, "Placeholders: ", t.placeholders.map((p) => `{{${p}}}`).join(" ")),
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Save template")));
    form.elements.body.value = t.body;
    const preview = previewPane(() => ({ app: business.name, title: rendered.title, subtitle: rendered.subtitle, body: rendered.body,
      payload: { aps: { alert: { title: rendered.title, subtitle: rendered.subtitle || undefined, body: rendered.body }, sound: form.elements.sound.value || undefined, badge: 99 } } }));
    const body = () => ({ title: form.elements.title.value, subtitle: form.elements.subtitle.value, body: form.elements.body.value,
      sound: form.elements.sound.value, enabled: form.elements.enabled.checked });
    const refresh = debounce(async () => {
      try {
        rendered = await api("POST", `/api/admin/businesses/${id}/templates/${t.event}/preview`, { template: body() });
        clearErrors(form);
      } catch (error) { showErrors(form, error); }
      preview.render();
    }, 250);
    form.addEventListener("input", refresh);
    onSubmit(form, async () => { Object.assign(t, await api("PUT", `/api/admin/businesses/${id}/templates/${t.event}`, body())); toast("Template saved"); });
    holder.replaceChildren(h("div", { class: "composer" }, form, preview.pane));
    refresh();
  }
  picker.addEventListener("change", show);
  show();
}

// ---------------------------------------------------------------------------------------------------------------
// The campaign composer.

function questionEditor(onChange) {
  const list = h("div", { id: "questions" });
  const type = h("select", { id: "new-question-type", "aria-label": "Question type" }, QUESTION_TYPES.map((t) => option(t, t.replace("_", " "))));
  const add = h("button", { type: "button", class: "secondary", id: "add-question" }, "Add question");
  let count = 0;
  add.addEventListener("click", () => { addQuestion(type.value); onChange(); });
  function addQuestion(kind) {
    const n = count++;
    const prefix = `survey.questions[${n}]`;
    const box = h("div", { class: "question", "data-type": kind, "data-index": n });
    const extra = [];
    if (kind === "single_choice" || kind === "multiple_choice") extra.push(field("Choices (one per line)", prefix + ".choices", { rows: 3 }, "textarea"));
    if (kind === "rating" || kind === "slider" || kind === "number") extra.push(h("div", { class: "row" }, field("Min", prefix + ".min", { type: "number" }), field("Max", prefix + ".max", { type: "number" })));
    if (kind === "open_ended") extra.push(field("Max length", prefix + ".max_length", { type: "number" }));
    box.append(h("h3", {}, `Question ${n + 1}: ${kind.replace("_", " ")}`),
      field("Question text", prefix + ".text", { "data-role": "text" }),
      h("label", { class: "inline" }, h("input", { type: "checkbox", "data-role": "required" }), "Required"), ...extra,
      h("button", { type: "button", class: "danger", onclick: () => { box.remove(); onChange(); } }, "Remove"));
    list.append(box);
    box.querySelector("input").focus();
  }
  function questions() {
    return [...list.children].map((box) => {
      const n = box.dataset.index;
      const get = (name) => box.querySelector(`[data-field="survey.questions[${n}].${name}"]`)?.value;
      const q = { id: "q" + (Number(n) + 1), text: get("text"), type: box.dataset.type, required: box.querySelector("[data-role=required]").checked };
      const choices = get("choices");
      if (choices !== undefined) q.choices = choices.split("\n").map((t) => t.trim()).filter(Boolean).map((t, i) => ({ id: "c" + (i + 1), text: t }));
      for (const k of ["min", "max", "max_length"]) { const v = get(k); if (v !== undefined && v !== "") q[k] = Number(v); }
      return q;
    });
  }
  return { element: h("div", {}, list, h("div", { class: "actions" }, h("label", { class: "inline", for: "new-question-type" }, "Type"), type, add)), questions };
}

async function pageComposer(root, id) {
  const [business, segments, geofences] = await Promise.all([api("GET", `/api/admin/businesses/${id}`),
    api("GET", `/api/admin/businesses/${id}/segments`).catch(() => ({ data: [] })),
    api("GET", `/api/admin/businesses/${id}/geofences?limit=500`).catch(() => ({ data: [] }))]);
  root.append(h("h1", {}, `New campaign — ${business.name}`));
  let media = null; // {url, type} once uploaded
  let localImage = null; // object URL of the chosen file, for the preview before upload finishes
  const questions = questionEditor(() => update());
  const segmentList = segments.data || segments || [];
  const form = h("form", { novalidate: true, id: "composer-form" }, formError(),
    h("fieldset", {}, h("legend", {}, "Message"),
      field("Campaign name (internal)", "name", { required: true }),
      field("Headline", "message.headline", { required: true, maxlength: 200 }),
      field("Body", "message.body", { required: true, maxlength: 2000 }, "textarea"),
      field("Image (JPEG, PNG or GIF)", "message.media", { type: "file", accept: "image/jpeg,image/png,image/gif" }),
      h("p", { class: "muted", id: "media-status" }),
      h("div", { class: "row" }, field("Button label", "message.cta.label", { maxlength: 100 }), field("Button link", "message.cta.url", { placeholder: "https://… or yourapp://…" }))),
    h("fieldset", {}, h("legend", {}, "Survey (optional)"), field("Survey title", "survey.title"), questions.element),
    h("fieldset", {}, h("legend", {}, "Audience"),
      h("div", { role: "radiogroup", "aria-label": "Audience" },
        h("label", { class: "inline" }, h("input", { type: "radio", name: "audience", value: "all", checked: true }), "Everyone"),
        h("label", { class: "inline" }, h("input", { type: "radio", name: "audience", value: "segment" }), "A segment"),
        h("label", { class: "inline" }, h("input", { type: "radio", name: "audience", value: "users" }), "User ids")),
      field("Segment", "audience.segment_id", { options: segmentList.map((sg) => option(sg.id, sg.name)) }, "select"),
      h("p", { class: "muted", id: "segment-count", "aria-live": "polite" }),
      field("User ids (comma-separated)", "audience.user_ids"),
      h("div", {}, h("span", { class: "muted" }, "Channels: "), ["push", "inbox", "pull"].map((c) => h("label", { class: "inline" }, h("input", { type: "checkbox", name: "channel", value: c, checked: c !== "pull" }), c))),
      h("span", { "data-field": "channels" })),
    h("fieldset", {}, h("legend", {}, "Trigger"),
      h("div", { role: "radiogroup", "aria-label": "Trigger" }, [["now", "Now"], ["scheduled", "Scheduled"], ["local", "Local time"], ["geofence", "Geofence"]].map(([v, t]) =>
        h("label", { class: "inline" }, h("input", { type: "radio", name: "trigger", value: v, checked: v === "now" }), t))),
      field("Send at", "trigger.at", { type: "datetime-local" }),
      field("Time of day in each device's time zone", "trigger.local_time", { type: "time" }),
      field("Geofences", "trigger.geofence_ids", { select: { multiple: true }, options: (geofences.data || []).map((g) => option(g.id, `${g.name} (${Math.round(g.radius_meters)} m)`)) }, "select"),
      field("On", "trigger.event", { options: [option("enter", "enter"), option("exit", "exit")] }, "select")),
    h("fieldset", {}, h("legend", {}, "Limits"),
      h("div", { class: "row" }, field("Cooldown (seconds)", "limits.cooldown_seconds", { type: "number", min: 0 }),
        field("Max per install", "limits.max_per_install", { type: "number", min: 1 }),
        field("Throttle (per minute)", "limits.throttle_per_minute", { type: "number", min: 1 })),
      h("div", { class: "row" }, field("Quiet hours start", "limits.quiet_hours.start", { type: "time" }), field("Quiet hours end", "limits.quiet_hours.end", { type: "time" })),
      h("div", { class: "row" }, field("Frequency cap: count", "limits.frequency_cap.count", { type: "number", min: 1 }), field("… per hours", "limits.frequency_cap.period_hours", { type: "number", min: 1 })),
      h("label", { class: "inline" }, h("input", { type: "checkbox", name: "sandbox", "data-field": "sandbox" }), "Sandbox: approved test devices only")),
    h("div", { class: "actions" }, h("button", { type: "submit", value: "draft", class: "secondary" }, "Save draft"), h("button", { type: "submit", value: "launch", id: "launch" }, "Launch")));
  const el = (name) => form.querySelector(`[data-field="${name}"]`);

  const preview = previewPane(() => {
    const spec = message();
    return { app: business.name, title: spec.headline, body: spec.body, imageURL: localImage || media?.url, cta: spec.cta?.label || (spec.cta ? "Open" : ""), payload: estimatePayload(spec) };
  });
  const card = cardPreview(() => deviceMessage(), () => preview.theme.value);
  preview.pane.append(card.pane);
  preview.theme.addEventListener("change", () => card.show());
  root.append(h("div", { class: "composer" }, h("div", { class: "card" }, form), preview.pane));

  // The message as the device API will hand it to the app (a sandbox headline gets its prefix there too).
  function deviceMessage() {
    const spec = message();
    const survey = questions.questions();
    const sandbox = form.elements.sandbox.checked;
    const m = { id: "preview", type: survey.length ? "survey" : "message", headline: (sandbox ? "Sandbox · " : "") + (spec.headline || "Headline"),
      body: spec.body || "Body", sandbox, questions: survey };
    const imageURL = localImage || media?.url;
    if (imageURL) m.media = { type: "image", url: imageURL };
    if (spec.cta?.url) m.cta = spec.cta;
    return m;
  }

  function message() {
    const m = { headline: el("message.headline").value, body: el("message.body").value };
    if (media) m.media = { type: "image", url: media.url };
    const url = el("message.cta.url").value, label = el("message.cta.label").value;
    if (url || label) { m.cta = { url }; if (label) m.cta.label = label; }
    return m;
  }
  // What the push will carry, near enough to count its bytes as it fills (the server checks the real one).
  function estimatePayload(m) {
    const payload = { aps: { alert: { title: m.headline, body: m.body }, sound: "default", badge: 9999, "mutable-content": 1 },
      campaign_id: "9999999999", n: 9999999999, u: 9999999999 };
    if (m.media) payload.media = m.media;
    if (m.cta) payload.cta = m.cta;
    if (questions.questions().length) payload.survey_id = 9999999999;
    return payload;
  }
  function audience() {
    const kind = form.querySelector("input[name=audience]:checked").value;
    if (kind === "segment") return { segment_id: Number(el("audience.segment_id").value) || null };
    if (kind === "users") return { user_ids: el("audience.user_ids").value.split(/[\s,]+/).filter(Boolean).map(Number) };
    return { all: true };
  }
  function trigger() {
    const kind = form.querySelector("input[name=trigger]:checked").value;
    if (kind === "scheduled") { const at = el("trigger.at").value; return { type: "scheduled", at: at ? new Date(at).toISOString() : null }; }
    if (kind === "local") return { type: "scheduled", local_time: el("trigger.local_time").value || null };
    if (kind === "geofence") return { type: "geofence", geofence_ids: [...el("trigger.geofence_ids").selectedOptions].map((o) => Number(o.value)), event: el("trigger.event").value };
    return { type: "now" };
  }
  function limits() {
    const out = {};
    const num = (name) => { const v = el("limits." + name).value; return v === "" ? undefined : Number(v); };
    for (const k of ["cooldown_seconds", "max_per_install", "throttle_per_minute"]) if (num(k) !== undefined) out[k] = num(k);
    const qs = el("limits.quiet_hours.start").value, qe = el("limits.quiet_hours.end").value;
    if (qs || qe) out.quiet_hours = { start: qs, end: qe };
    if (num("frequency_cap.count") !== undefined || num("frequency_cap.period_hours") !== undefined) out.frequency_cap = { count: num("frequency_cap.count"), period_hours: num("frequency_cap.period_hours") };
    return out;
  }
  function update() {
    const a = form.querySelector("input[name=audience]:checked").value;
    el("audience.segment_id").closest(".field").hidden = a !== "segment";
    document.getElementById("segment-count").hidden = a !== "segment";
    el("audience.user_ids").closest(".field").hidden = a !== "users";
    const t = form.querySelector("input[name=trigger]:checked").value;
    el("trigger.at").closest(".field").hidden = t !== "scheduled";
    el("trigger.local_time").closest(".field").hidden = t !== "local";
    el("trigger.geofence_ids").closest(".field").hidden = t !== "geofence";
    el("trigger.event").closest(".field").hidden = t !== "geofence";
    preview.render();
    card.show();
  }
  const countSegment = debounce(async () => {
    const out = document.getElementById("segment-count");
    const segment = segmentList.find((sg) => String(sg.id) === el("audience.segment_id").value);
    if (!segment) { out.textContent = segmentList.length ? "" : "No segment yet (create them with the segments API)."; return; }
    try {
      const { count } = await api("POST", `/api/admin/businesses/${id}/segments/count`, { filter: segment.filter });
      out.textContent = `${count} device${count === 1 ? "" : "s"} in “${segment.name}” now`;
    } catch (error) { out.textContent = error.message; }
  }, 200);
  form.addEventListener("input", update);
  form.addEventListener("change", (event) => { update(); if (event.target.name === "audience" || event.target === el("audience.segment_id")) countSegment(); });
  el("message.media").addEventListener("change", async () => {
    const file = el("message.media").files[0];
    const status = document.getElementById("media-status");
    media = null;
    if (localImage) URL.revokeObjectURL(localImage);
    localImage = file ? URL.createObjectURL(file) : null;
    update();
    if (!file) return;
    status.textContent = "Uploading…";
    try {
      media = await api("POST", `/api/admin/businesses/${id}/media`, undefined, { raw: file, contentType: file.type || "application/octet-stream" });
      status.textContent = `Uploaded: ${media.url} (${media.size} bytes)${media.warning ? ` — ${media.warning}` : ""}`;
      status.dataset.url = media.url;
    } catch (error) { status.textContent = ""; showErrors(form, new APIError(error.status, { errors: { "message.media": [error.message] } })); }
    update();
  });

  onSubmit(form, async (submitter) => {
    const survey = questions.questions();
    const body = { name: el("name").value, message: message(), audience: audience(), channels: [...form.querySelectorAll("input[name=channel]:checked")].map((c) => c.value),
      trigger: trigger(), limits: limits(), sandbox: form.elements.sandbox.checked };
    if (survey.length) {
      try {
        const created = await api("POST", `/api/admin/businesses/${id}/surveys`, { title: el("survey.title").value || el("message.headline").value, questions: survey });
        body.message.survey_id = created.id;
      } catch (error) {
        if (error instanceof APIError) error.errors = Object.fromEntries(Object.entries(error.errors).map(([k, v]) => ["survey." + k, v]));
        throw error;
      }
    }
    const campaign = await api("POST", `/api/admin/businesses/${id}/campaigns`, body);
    if (submitter?.value === "launch") {
      await api("POST", `/api/admin/businesses/${id}/campaigns/${campaign.id}/launch`);
      toast("Campaign launched");
    } else {
      toast("Draft saved");
    }
    location.hash = `#/b/${id}/campaigns/${campaign.id}`;
  });
  update();
  countSegment();
}

// ---------------------------------------------------------------------------------------------------------------
// Campaigns and their reports.

async function pageCampaigns(root, id) {
  const list = await api("GET", `/api/admin/businesses/${id}/campaigns?limit=100`);
  root.append(h("h1", {}, "Campaigns"), h("p", {}, h("a", { href: `#/b/${id}/compose` }, "New campaign →")));
  root.append(h("div", { class: "card table-wrap" }, list.data.length ? h("table", {},
    h("thead", {}, h("tr", {}, ["Name", "Status", "Trigger", "Launched"].map((t) => h("th", {}, t)))),
    h("tbody", {}, list.data.map((c) => h("tr", {}, h("td", {}, h("a", { href: `#/b/${id}/campaigns/${c.id}` }, c.name)), h("td", {}, statusSpan(c.status)),
      h("td", {}, c.trigger.type), h("td", {}, formatTime(c.launched_at)))))) : h("p", {}, "No campaign yet.")));
}

const FUNNEL = ["targeted", "sent", "delivered", "received", "displayed", "opened", "cta_clicked", "survey_started", "survey_submitted"];

async function pageReport(root, id, cid) {
  const campaign = await api("GET", `/api/admin/businesses/${id}/campaigns/${cid}`);
  root.append(h("h1", {}, campaign.name));
  const status = h("p", { id: "campaign-status" });
  const actions = h("div", { class: "actions" });
  const funnel = h("div", { class: "card", id: "funnel" });
  const timeline = h("div", { class: "card", id: "timeline" });
  const numbers = h("div", { class: "card table-wrap", id: "report-numbers" });
  root.append(status, actions, h("h2", {}, "Funnel"), funnel, h("h2", {}, "Deliveries over time"), timeline, numbers);
  const samples = [];
  for (const [verb, label, cls] of [["launch", "Launch", ""], ["pause", "Pause", "secondary"], ["cancel", "Cancel", "danger"]]) {
    actions.append(h("button", { type: "button", class: cls, "data-verb": verb, onclick: async () => {
      try { await api("POST", `/api/admin/businesses/${id}/campaigns/${cid}/${verb}`); toast(`${label}: done`); refresh(); } catch (e) { toast(e.message); }
    } }, label));
  }
  async function refresh() {
    const [c, report] = await Promise.all([api("GET", `/api/admin/businesses/${id}/campaigns/${cid}`), api("GET", `/api/admin/businesses/${id}/campaigns/${cid}/report`)]);
    // What each status allows: launch a draft or a paused one, pause a running one, cancel until it is over.
    const allowed = { draft: ["launch", "cancel"], running: ["pause", "cancel"], paused: ["launch", "cancel"] }[c.status] || [];
    actions.querySelectorAll("button").forEach((b) => (b.hidden = !allowed.includes(b.dataset.verb)));
    // Its pace: what waits, at what rate, when it should be done, and what holds it back.
    const { pace, ...counts } = report;
    const waiting = !pace || pace.waiting <= 0 ? ""
      : pace.paced_by === "credential" ? ` · ${pace.waiting} waiting for a push credential (none set, or refused)`
      : ` · ${pace.waiting} waiting at ${pace.rate_per_second}/s, done ${formatTime(pace.expected_finish_at)}${pace.paced_by ? ` (paced by the ${pace.paced_by})` : ""}`;
    status.replaceChildren("Status: ", statusSpan(c.status), ` · trigger ${c.trigger.type}`, c.sandbox ? " · sandbox" : "", ` · launched ${formatTime(c.launched_at)}`, waiting);
    samples.push({ t: Date.now(), delivered: report.delivered, failed: report.failed, sent: report.sent });
    if (samples.length > 300) samples.shift();
    funnel.replaceChildren(funnelChart(report));
    timeline.replaceChildren(timelineChart(samples), h("p", { class: "muted" }, "Sampled every 2 s while this page is open."));
    numbers.replaceChildren(h("table", {}, h("tbody", {}, Object.entries(counts).map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", { "data-metric": k }, String(v)))))));
  }
  await refresh();
  pollTimer = setInterval(() => refresh().catch(() => {}), 2000);
}

function funnelChart(report) {
  const max = Math.max(1, ...FUNNEL.map((k) => report[k] || 0));
  const rowH = 26, labelW = 130, width = 560;
  const svg = s("svg", { viewBox: `0 0 ${width} ${FUNNEL.length * rowH + 4}`, width: "100%", role: "img", "aria-label": "Campaign funnel: " + FUNNEL.map((k) => `${k} ${report[k]}`).join(", ") });
  FUNNEL.forEach((k, i) => {
    const v = report[k] || 0;
    const w = Math.max(1, ((width - labelW - 60) * v) / max);
    svg.append(s("text", { x: 0, y: i * rowH + 17 }, k.replace(/_/g, " ")),
      s("rect", { x: labelW, y: i * rowH + 4, width: w, height: rowH - 8, rx: 3, fill: i < 3 ? "#2554c7" : "#6c8ee0" }),
      s("text", { x: labelW + w + 6, y: i * rowH + 17 }, String(v)));
  });
  return svg;
}

function timelineChart(samples) {
  const width = 560, height = 160, pad = 30;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", "aria-label": `Deliveries over time: ${samples.at(-1)?.delivered ?? 0} delivered` });
  const max = Math.max(1, ...samples.map((x) => Math.max(x.delivered, x.sent)));
  const t0 = samples[0]?.t ?? 0, t1 = Math.max(t0 + 1000, samples.at(-1)?.t ?? 0);
  const x = (t) => pad + ((t - t0) / (t1 - t0)) * (width - 2 * pad);
  const y = (v) => height - pad - (v / max) * (height - 2 * pad);
  svg.append(s("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#999" }),
    s("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, stroke: "#999" }),
    s("text", { x: 2, y: pad }, String(max)), s("text", { x: 2, y: height - pad }, "0"));
  for (const [key, color] of [["sent", "#9aa0ad"], ["delivered", "#1b7a3d"], ["failed", "#b3261e"]]) {
    const points = samples.map((p) => `${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
    svg.append(s("polyline", { points, fill: "none", stroke: color, "stroke-width": 2 }));
  }
  [["delivered", "#1b7a3d"], ["sent", "#9aa0ad"], ["failed", "#b3261e"]].forEach(([key, color], i) => {
    svg.append(s("rect", { x: width - 250 + i * 80, y: 4, width: 12, height: 12, fill: color }),
      s("text", { x: width - 234 + i * 80, y: 14 }, key));
  });
  return svg;
}

// ---------------------------------------------------------------------------------------------------------------
// Geofences: a list and a map-less canvas, circles drawn to scale around their mean centre.

async function pageGeofences(root, id) {
  const list = await api("GET", `/api/admin/businesses/${id}/geofences?limit=500`);
  root.append(h("h1", {}, "Geofences"));
  const canvas = h("canvas", { width: 560, height: 320, id: "geofence-canvas", role: "img", "aria-label": `${list.data.length} geofences drawn to scale` });
  root.append(h("div", { class: "card" }, canvas));
  drawGeofences(canvas, list.data);
  root.append(h("div", { class: "card table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, ["Name", "Centre", "Radius", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, list.data.map((g) => h("tr", {}, h("td", {}, g.name), h("td", { class: "mono" }, `${g.center.latitude.toFixed(5)}, ${g.center.longitude.toFixed(5)}`),
      h("td", {}, `${Math.round(g.radius_meters)} m`),
      h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Delete ${g.name}`, onclick: async () => { await api("DELETE", `/api/admin/businesses/${id}/geofences/${g.id}`); route(); } }, "Delete"))))))));
  const form = h("form", { class: "card", novalidate: true, id: "geofence-form" }, h("h2", {}, "New circle"), formError(),
    field("Name", "name"), h("div", { class: "row" }, field("Latitude", "center.latitude", { type: "number", step: "any" }), field("Longitude", "center.longitude", { type: "number", step: "any" }),
      field("Radius (m)", "radius_meters", { type: "number", min: 10, max: 100000 })),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Add geofence")));
  onSubmit(form, async () => {
    const v = (n) => form.querySelector(`[data-field="${n}"]`).value;
    const num = (n) => (v(n) === "" ? null : Number(v(n)));
    await api("POST", `/api/admin/businesses/${id}/geofences`, { name: v("name"), shape: "circle", center: { latitude: num("center.latitude"), longitude: num("center.longitude") }, radius_meters: num("radius_meters") });
    route();
  });
  root.append(form);
}

function drawGeofences(canvas, fences) {
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!fences.length) { ctx.fillText("No geofence yet.", 10, 20); return; }
  const lat0 = fences.reduce((a, g) => a + g.center.latitude, 0) / fences.length;
  const lon0 = fences.reduce((a, g) => a + g.center.longitude, 0) / fences.length;
  const mPerLat = 111320, mPerLon = 111320 * Math.cos((lat0 * Math.PI) / 180);
  const pts = fences.map((g) => ({ g, x: (g.center.longitude - lon0) * mPerLon, y: (g.center.latitude - lat0) * mPerLat }));
  const extent = Math.max(...pts.map((p) => Math.max(Math.abs(p.x), Math.abs(p.y)) + p.g.radius_meters));
  const scale = (Math.min(canvas.width, canvas.height) / 2 - 10) / extent;
  ctx.font = "12px system-ui";
  for (const p of pts) {
    const cx = canvas.width / 2 + p.x * scale, cy = canvas.height / 2 - p.y * scale;
    ctx.beginPath(); ctx.arc(cx, cy, Math.max(2, p.g.radius_meters * scale), 0, 2 * Math.PI);
    ctx.fillStyle = "rgba(37,84,199,.18)"; ctx.fill(); ctx.strokeStyle = "#2554c7"; ctx.stroke();
    ctx.fillStyle = "#1c1d21"; ctx.fillText(`${p.g.name} (${Math.round(p.g.radius_meters)} m)`, cx + 4, cy - 4);
  }
  ctx.fillText(`scale: ${Math.round(100 / scale)} m per 100 px`, 8, canvas.height - 8);
}

// ---------------------------------------------------------------------------------------------------------------
// Device lookup, its deliveries with Apple's / Google's answers, and a test push.

async function pageDevices(root, id) {
  root.append(h("h1", {}, "Device lookup"));
  const form = h("form", { class: "card", novalidate: true, id: "device-form" }, formError(),
    h("div", { class: "row" }, field("User id", "user_id", { type: "number", min: 1 }), field("Email", "email", { type: "email" })),
    h("div", { class: "row" }, field("Install id", "install_id"), field("Token prefix", "token_prefix", { placeholder: "first characters of the push token" })),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Look up")));
  const results = h("div", { id: "device-results" });
  const approve = h("form", { class: "card", novalidate: true, id: "approve-form" }, h("h2", {}, "Approve a test device"), formError(),
    h("p", { class: "muted" }, "A sandbox build shows its approval code; approved, it receives sandbox campaigns."),
    field("Approval code", "approval_code"), h("div", { class: "actions" }, h("button", { type: "submit" }, "Approve")));
  onSubmit(approve, async () => {
    const r = await api("POST", `/api/admin/businesses/${id}/test-devices`, { approval_code: approve.elements.approval_code.value });
    toast(`Test device ${r.install_id}: ${r.status}`);
  });
  root.append(form, results, approve);
  onSubmit(form, async () => {
    const q = new URLSearchParams();
    for (const k of ["user_id", "email", "install_id", "token_prefix"]) if (form.elements[k].value) q.set(k, form.elements[k].value);
    const found = await api("GET", `/api/admin/businesses/${id}/devices?${q}`);
    results.replaceChildren(...(found.data.length ? found.data.map((d) => deviceCard(id, d)) : [h("p", { class: "card" }, "No device matches.")]));
  });
}

function deviceCard(id, d) {
  const out = h("p", { class: "muted", "aria-live": "polite" });
  const test = h("button", { type: "button", class: "secondary", disabled: !d.user_id, title: d.user_id ? "" : "Only a device signed in as a user can get news" }, "Send test push");
  test.addEventListener("click", async () => {
    try {
      const r = await api("POST", `/api/admin/businesses/${id}/notifications`, { user_ids: [d.user_id], title: "Test push", body: "A test from the Herald console." });
      out.textContent = `Queued as notification ${r.notification_ids.join(", ")} (to every device of user ${d.user_id}). Look up again to see its delivery.`;
    } catch (e) { out.textContent = e.message; }
  });
  return h("div", { class: "card device", "data-device": d.id },
    h("h2", {}, `${d.platform === "apns" ? "iOS" : "Android"} device ${d.id}`),
    h("p", {}, "Install id ", h("code", {}, d.install_id), " · user ", d.user_id ?? "none", d.email ? ` (${d.email})` : "",
      " · token ", h("code", {}, d.token_prefix ? d.token_prefix + "…" : "none"), d.workspace ? ` · ${d.workspace}` : "",
      d.test_status ? ` · test device ${d.test_status}` : "", ` · last seen ${formatTime(d.last_seen_at)}`),
    d.deliveries.length ? h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Notification", "Status", "Attempts", "Provider's answer", "Message id", "Updated"].map((t) => h("th", {}, t)))),
      h("tbody", {}, d.deliveries.map((x) => h("tr", {}, h("td", {}, String(x.notification_id)), h("td", {}, statusSpan(x.status)), h("td", {}, String(x.attempts)),
        h("td", {}, x.last_reason || (x.status === "delivered" ? "accepted" : "—")), h("td", { class: "mono" }, x.provider_message_id || "—"), h("td", {}, formatTime(x.updated_at)))))))
      : h("p", { class: "muted" }, "No delivery yet."),
    h("div", { class: "actions" }, test), out);
}

// ---------------------------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("sign-in-form");
  onSubmit(form, async () => {
    const token = form.elements.token.value.trim();
    try { await signIn(token); } catch (error) {
      sessionStorage.removeItem(TOKEN_KEY);
      throw error.status === 401 ? new APIError(401, { errors: { token: ["is not the admin token"] } }) : error;
    }
    form.reset();
    showApp();
  });
  form.append(formError());
  document.getElementById("token").setAttribute("data-field", "token");
  document.getElementById("sign-out").addEventListener("click", () => signOut("Signed out"));
  window.addEventListener("hashchange", route);
  if (sessionStorage.getItem(TOKEN_KEY)) showApp();
});
