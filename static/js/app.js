/* Behaviour every page shares, kept out of the HTML so the Content-Security-Policy can refuse
   inline scripts and event handlers (docs/security.md):
   - data-confirm="question": a click goes on only if the person confirms;
   - data-no-enter: Enter in this field does not submit its form;
   - data-select-all="name": this checkbox ticks every input[name] of its form. */
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var trigger = event.target.closest && event.target.closest("[data-confirm]");
    if (trigger && !window.confirm(trigger.getAttribute("data-confirm"))) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.closest && event.target.closest("[data-no-enter]")) {
      event.preventDefault();
    }
  });

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("[data-select-all]")) return;
    var name = box.getAttribute("data-select-all");
    box.closest("form").querySelectorAll("input[name='" + name + "']").forEach(function (item) {
      item.checked = box.checked;
    });
  });
})();
