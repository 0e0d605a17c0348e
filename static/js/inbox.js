/* The inbox (docs/inbox.md): keyboard shortcuts and the thread's scroll.
   j/k next/previous conversation, r the reply box, e close, ? the shortcuts.
   Keys typed in a text box are the operator's text, never shortcuts. */
(function () {
  "use strict";
  var inbox = document.getElementById("inbox");
  if (!inbox) return;

  function links() {
    return Array.prototype.slice.call(document.querySelectorAll("#inbox-list .conv-link"));
  }
  function currentIndex(all) {
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("aria-current") === "true") return i;
    }
    return -1;
  }
  function go(step) {
    var all = links();
    if (!all.length) return;
    var i = currentIndex(all);
    var next = i < 0 ? (step > 0 ? 0 : all.length - 1) : i + step;
    if (next < 0 || next >= all.length) return;
    window.location.assign(all[next].href);
  }
  function closeConversation() {
    var form = document.getElementById("close-form");
    if (!form) return;
    var all = links(), i = currentIndex(all);
    var after = all[i + 1] || all[i - 1];
    var field = form.querySelector("[data-next]");
    if (field && after) field.value = after.getAttribute("href");
    form.submit();
  }
  function typing(target) {
    if (!target) return false;
    var tag = (target.tagName || "").toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    var help = document.getElementById("inbox-help");
    if (help && help.open) return;  // the dialog handles its own keys (Esc closes it)
    if (event.key === "j") { go(1); }
    else if (event.key === "k") { go(-1); }
    else if (event.key === "r") {
      var composer = document.getElementById("composer-text");
      if (!composer) return;
      composer.focus();
    }
    else if (event.key === "e") { closeConversation(); }
    else if (event.key === "?") { if (help) help.showModal(); }
    else { return; }
    event.preventDefault();
  });

  // The thread opens at its latest message; a refresh keeps the operator at the bottom
  // when they were there, and where they were otherwise (reading older messages).
  function thread() { return document.getElementById("inbox-thread"); }
  function toBottom() {
    var box = thread();
    if (box) box.scrollTop = box.scrollHeight;
  }
  var wasAtBottom = true, readingAt = 0;
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var box = thread();
    if (box && event.detail.elt === box) {
      readingAt = box.scrollTop;
      wasAtBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    }
  });
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var elt = event.detail.elt;  // the poll's element (the old thread), not "show earlier"
    if (!elt || elt.id !== "inbox-thread") return;
    var box = thread();
    // A new thread element starts at its top: put the operator back where they were
    // reading (the refresh starts from the same message once "show earlier" was used,
    // and new messages arrive at the bottom).
    if (wasAtBottom) toBottom();
    else if (box) box.scrollTop = readingAt;
  });
  // "Show earlier" marks the oldest message it loaded; the poll then asks for everything
  // from there ("since"), so a refresh keeps what the operator loaded.
  document.body.addEventListener("htmx:afterSettle", function () {
    var box = thread(), mark = box && box.querySelector("[data-thread-since]");
    if (!mark || !mark.dataset.threadSince) return;
    var vals = JSON.parse(box.getAttribute("hx-vals") || "{}");
    vals.since = mark.dataset.threadSince;
    box.setAttribute("hx-vals", JSON.stringify(vals));
  });
  toBottom();
  var selected = document.querySelector("#inbox-list .conv-link[aria-current=true]");
  if (selected) selected.scrollIntoView({block: "nearest"});
})();
