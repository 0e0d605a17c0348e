/* The review queue: keyboard shortcuts (j/k/a/e/r/x), focus after an htmx action, "select
   all on this page", and the SLA countdowns, refreshed every minute. Its words come from
   the page (data-* attributes on #review-queue).

   An action posted with htmx replaces its item with nothing (the item is closed) or with
   itself (assigned, refused), and appends the tab's next item (console.views.review).
   Focus then moves to the item that took the acted one's place. */
(function () {
  "use strict";
  var queue = document.getElementById("review-queue");
  if (!queue) return;
  var current = -1;
  var pending = null;  // the index of the item an htmx action was posted from

  function items() {
    return Array.prototype.slice.call(document.querySelectorAll(".review-item"));
  }
  function focusItem(i) {
    var all = items();
    if (!all.length) { current = -1; return; }
    current = Math.max(0, Math.min(all.length - 1, i));
    all[current].focus();
    all[current].scrollIntoView({block: "nearest"});
  }
  function active() {
    var el = document.activeElement && document.activeElement.closest(".review-item");
    return el || items()[current] || null;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    var item, button;
    if (event.key === "j") { focusItem(current + 1); }
    else if (event.key === "k") { focusItem(current - 1); }
    else if (event.key === "a" && (item = active())) {
      button = item.querySelector("[data-key=approve]");
      if (button && !button.disabled) button.click();
    }
    else if (event.key === "e" && (item = active())) { item.querySelector("textarea").focus(); }
    else if (event.key === "r" && (item = active())) { item.querySelector("[data-key=reject-note]").focus(); }
    else if (event.key === "x" && (item = active())) {
      var pick = item.querySelector("[data-pick]");
      if (pick) pick.checked = !pick.checked;
    }
    else { return; }
    event.preventDefault();
  });

  // Remember where the acted item was, so focus lands on the one that takes its place.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var item = event.target.closest && event.target.closest(".review-item");
    if (!item) return;
    pending = items().indexOf(item);
    item.classList.add("is-busy");
  });
  document.addEventListener("htmx:responseError", function (event) {
    var item = event.target.closest && event.target.closest(".review-item");
    if (item) item.classList.remove("is-busy");
    pending = null;
  });
  var list = document.getElementById("review-items");
  if (list && window.MutationObserver) {
    new MutationObserver(function () {
      var empty = document.getElementById("review-empty");
      if (empty) empty.hidden = items().length > 0;
      if (pending === null) return;
      var at = pending;
      pending = null;
      focusItem(at);
    }).observe(list, {childList: true});
  }

  // "Select all on this page": the bulk form's checkboxes.
  queue.addEventListener("change", function (event) {
    if (!event.target.matches("[data-select-all]")) return;
    document.querySelectorAll("[data-pick]").forEach(function (box) {
      box.checked = event.target.checked;
    });
  });

  // Refresh the SLA countdowns every minute. They count working time (the server said how
  // many minutes were left and, while the window is open, until when the clock runs):
  // outside the window they stand still, as the SLA does.
  // The words are the server's, in the page's language (hitl.review_queue.countdown_words).
  var words = JSON.parse(queue.getAttribute("data-countdown-words"));
  function fmt(minutes) {
    var d = Math.floor(minutes / 1440), h = Math.floor((minutes % 1440) / 60), m = minutes % 60;
    if (d) return words.days.replace("%(d)s", d).replace("%(h)s", h);
    if (h) return words.hours.replace("%(h)s", h).replace("%(m)02d", (m < 10 ? "0" : "") + m);
    return words.minutes.replace("%(m)s", m);
  }
  function stamp() {  // when each countdown was computed: the page load, or its htmx swap
    var now = String(Date.now());
    document.querySelectorAll("[data-sla-until]").forEach(function (el) {
      if (!el.dataset.slaFrom) el.dataset.slaFrom = now;
    });
  }
  function tick(root) {
    var now = Date.now();
    root.querySelectorAll("[data-sla-until]").forEach(function (el) {
      var stop = Math.min(now, Date.parse(el.dataset.slaUntil));
      var left = parseInt(el.dataset.slaMinutes, 10) - Math.floor((stop - Number(el.dataset.slaFrom)) / 60000);
      el.textContent = left > 0 ? words.due_in.replace("%(t)s", fmt(left))
                                : words.overdue_by.replace("%(t)s", fmt(-left));
      el.classList.toggle("sla--overdue", left <= 0);
    });
  }
  stamp();
  if (list && window.MutationObserver) new MutationObserver(stamp).observe(list, {childList: true});
  setInterval(function () { tick(document); }, 60000);
})();
