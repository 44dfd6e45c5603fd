// The card above the on-screen keyboard. A phone's keyboard covers the bottom of the page without resizing it: only
// the visual viewport (`window.visualViewport`) shrinks. The card's frame is fitted to what is still visible
// (--visible-top, --visible-bottom on the root), and the focused field is scrolled into view inside the card.
"use strict";

(function () {
  const viewport = window.visualViewport;
  if (!viewport) return;
  const root = document.documentElement;

  /** Fits the frame to the visible part of the page; true when the keyboard (or anything) hides part of it. */
  function fit() {
    const top = Math.max(0, viewport.offsetTop);
    const hidden = Math.max(0, window.innerHeight - top - viewport.height);
    root.style.setProperty("--visible-top", top + "px");
    root.style.setProperty("--visible-bottom", hidden + "px");
    return hidden > 0 || top > 0;
  }

  /** Scrolls the focused field of the card into view, once the frame has its new size. */
  function reveal() {
    const field = document.activeElement;
    if (!field || !field.closest || !field.closest(".card") || !field.matches("input, textarea, select")) return;
    requestAnimationFrame(() => field.scrollIntoView({ block: "nearest", inline: "nearest" }));
  }

  viewport.addEventListener("resize", () => { if (fit()) reveal(); });
  viewport.addEventListener("scroll", () => { if (fit()) reveal(); });
  document.addEventListener("focusin", () => { fit(); reveal(); });
  fit();
})();
