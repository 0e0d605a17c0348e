/* The sequences page: a step condition's hours and stages show only for the kinds that use
   them (each part's data-for-kinds lists those). Without this script every part shows and
   the server ignores the ones a kind does not use (console/forms_step_conditions.py). */
(function () {
  "use strict";

  function fit(select) {
    var row = select.closest("[data-condition-row]");
    if (!row) return;
    row.querySelectorAll("[data-condition-part]").forEach(function (part) {
      var kinds = part.getAttribute("data-for-kinds").split(" ");
      part.hidden = kinds.indexOf(select.value) === -1;
    });
  }

  document.querySelectorAll("select[data-condition-kind]").forEach(fit);
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[data-condition-kind]")) {
      fit(event.target);
    }
  });
})();
