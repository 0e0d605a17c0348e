/* The review queue: keyboard shortcuts (j/k/a/e/r) and the SLA countdowns, refreshed every
   minute. Its words come from the page (data-* attributes on #review-queue). */
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll(".review-item"));
  var current = -1;
  var queue = document.getElementById("review-queue");
  if (!queue) return;
  var confirmApprove = queue.getAttribute("data-confirm-approve");
  function focusItem(i) {
    if (!items.length) return;
    current = Math.max(0, Math.min(items.length - 1, i));
    items[current].focus();
    items[current].scrollIntoView({block: "nearest"});
  }
  function active() {
    var el = document.activeElement && document.activeElement.closest(".review-item");
    return el || items[current] || null;
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    var item;
    if (event.key === "j") { focusItem(current + 1); }
    else if (event.key === "k") { focusItem(current - 1); }
    else if (event.key === "a" && (item = active())) {
      if (window.confirm(confirmApprove)) item.querySelector("[data-key=approve]").click();
    }
    else if (event.key === "e" && (item = active())) { item.querySelector("textarea").focus(); }
    else if (event.key === "r" && (item = active())) { item.querySelector("[data-key=reject-note]").focus(); }
    else { return; }
    event.preventDefault();
  });
  // Refresh the SLA countdowns every minute (the server computed them at page load).
  function fmt(minutes) {
    var d = Math.floor(minutes / 1440), h = Math.floor((minutes % 1440) / 60), m = minutes % 60;
    if (d) return d + "d " + h + "h";
    if (h) return h + "h " + (m < 10 ? "0" : "") + m + "m";
    return m + "m";
  }
  var dueIn = queue.getAttribute("data-due-in"), overdueBy = queue.getAttribute("data-overdue-by");
  setInterval(function () {
    document.querySelectorAll("[data-sla-due]").forEach(function (el) {
      var diff = Math.floor((Date.parse(el.dataset.slaDue) - Date.now()) / 60000);
      el.textContent = diff > 0 ? dueIn + " " + fmt(diff) : overdueBy + " " + fmt(-diff);
      el.classList.toggle("sla--overdue", diff <= 0);
    });
  }, 60000);
})();
