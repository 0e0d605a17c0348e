/* The inbox (docs/inbox.md): keyboard shortcuts, the conversation pane and the thread's scroll.
   j/k next/previous conversation, r the reply box, e close, ? the shortcuts.
   Keys typed in a text box are the operator's text, never shortcuts.
   A conversation opened from the list (a click, j/k) replaces the pane beside the list
   (htmx, hx-boost on the list): the list stays where it was and shows the new selection. */
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
    all[next].click();  // htmx opens it in the pane (a plain link without htmx)
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
  // A conversation opened in the pane: the list marks it selected and read, its poll
  // keeps that selection, and on a tablet the pane takes the screen.
  function opened(lead) {
    inbox.classList.add("inbox--thread");
    inbox.setAttribute("data-selected", lead);
    Array.prototype.forEach.call(document.querySelectorAll("#inbox-list .conv"), function (row) {
      var on = row.getAttribute("data-conversation") === lead;
      var link = row.querySelector(".conv-link");
      row.classList.toggle("is-selected", on);
      if (link) {
        if (on) link.setAttribute("aria-current", "true");
        else link.removeAttribute("aria-current");
      }
      if (on && row.hasAttribute("data-unread")) {
        row.classList.remove("is-unread");
        row.removeAttribute("data-unread");
        var dot = row.querySelector(".unread-dot");
        if (dot) dot.remove();
      }
    });
    var poll = document.querySelector("#inbox-list [data-list-poll]");
    if (poll) {
      var vals = JSON.parse(poll.getAttribute("hx-vals") || "{}");
      vals.sel = lead;
      poll.setAttribute("hx-vals", JSON.stringify(vals));
    }
  }
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "inbox-main") return;
    var head = target.querySelector("[data-lead]");
    if (head) opened(head.getAttribute("data-lead"));
    toBottom();
  });
  // The language switch comes back to the conversation open now, not to the page first
  // loaded.
  document.body.addEventListener("htmx:pushedIntoHistory", function (event) {
    Array.prototype.forEach.call(document.querySelectorAll("[data-next-here]"), function (input) {
      input.value = event.detail.path;
    });
  });
  // The list of a page opened on a thread comes after the thread: say so when it cannot.
  function listFailed(event) {
    var elt = event.detail.elt;
    if (!elt || elt.id !== "inbox-list" || !elt.hasAttribute("data-list-loading")) return;
    var note = elt.querySelector(".inbox-loading");
    if (note) note.textContent = elt.getAttribute("data-list-failed") || "";
    elt.removeAttribute("aria-busy");
  }
  document.body.addEventListener("htmx:responseError", listFailed);
  document.body.addEventListener("htmx:sendError", listFailed);

  toBottom();
  var selected = document.querySelector("#inbox-list .conv-link[aria-current=true]");
  if (selected) selected.scrollIntoView({block: "nearest"});
})();
