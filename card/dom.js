// Builds pages from data with elements and text nodes only, never parsed markup, so no text can inject anything.
// One copy for the notification card (card.js) and the admin console (its page loads it from /console/card/dom.js).
"use strict";

/**
 * An element: each of `attrs` becomes an attribute (an `on…` function a listener, `class` the class name, `text`
 * the text; null, undefined and false are left out, true is an empty attribute); `children` are nodes or text.
 */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
