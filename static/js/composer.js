/* The inbox composer (templates/outreach/inbox/_composer_form.html): a draft per lead kept
   in this browser (localStorage) until it is sent, the email fields shown for email only,
   and quick replies inserted from the list or by typing "/" at the start of the message
   (the server renders the reply's variables for the lead). Words come from data-* attributes. */
(function () {
  "use strict";
  var PREFIX = "cerniq:composer:";

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function readDraft(lead) {
    var s = storage();
    if (!s) return null;
    try { return JSON.parse(s.getItem(PREFIX + lead) || "null"); } catch (e) { return null; }
  }
  function writeDraft(lead, draft) {
    var s = storage();
    if (!s) return;
    try {
      if (!draft.text && !draft.subject) s.removeItem(PREFIX + lead);
      else s.setItem(PREFIX + lead, JSON.stringify(draft));
    } catch (e) { /* full or disabled: the draft is only a convenience */ }
  }
  function clearDraft(lead) {
    var s = storage();
    if (s) s.removeItem(PREFIX + lead);
  }

  function init(form) {
    if (!form || form.hasAttribute("data-composer-ready")) return;
    form.setAttribute("data-composer-ready", "");
    var lead = form.getAttribute("data-lead");
    var text = form.querySelector("[data-composer-text]");
    var subject = form.querySelector("#composer-subject");
    var emailBox = form.querySelector("[data-email-only]");
    var whatsappBox = form.querySelector("[data-whatsapp-only]");
    var state = form.querySelector("[data-draft-state]");
    var select = form.querySelector("[data-quick-select]");
    var list = form.querySelector("[data-quick-suggestions]");
    var emailChannel = form.getAttribute("data-email-channel");
    var active = -1;

    function checked() {
      var c = form.querySelector("[data-channel-choice]:checked");
      return c ? c.value : "";
    }
    function say(key) {
      if (state) state.textContent = key ? (form.getAttribute(key) || "") : "";
    }
    function showChannel() {
      var channel = checked();
      var email = channel === emailChannel;
      if (emailBox) emailBox.hidden = !email;
      if (whatsappBox) whatsappBox.hidden = email;
      text.maxLength = parseInt(form.getAttribute(email ? "data-max-email" : "data-max-whatsapp"), 10);
      if (select) {
        Array.prototype.forEach.call(select.options, function (option) {
          var only = option.getAttribute("data-channel");
          option.hidden = !!(only && channel && only !== channel);
        });
      }
    }
    function save() {
      writeDraft(lead, {text: text.value, subject: subject ? subject.value : "", channel: checked()});
      say(text.value || (subject && subject.value) ? "data-draft-saved" : "");
    }

    if (form.hasAttribute("data-sent")) {
      clearDraft(lead);
      say("data-draft-sent");
    } else if (!text.value && !(subject && subject.value)) {
      var draft = readDraft(lead);
      if (draft && (draft.text || draft.subject)) {
        var radio = draft.channel && form.querySelector('[data-channel-choice][value="' + draft.channel + '"]');
        if (radio && !radio.disabled) radio.checked = true;
        text.value = draft.text || "";
        if (subject) subject.value = draft.subject || "";
        say("data-draft-restored");
      }
    } else {
      save();  // text kept by a refused send: keep it here too
    }
    showChannel();
    if (form.querySelector("[data-composer-error]")) text.focus();

    function hideList() {
      if (!list) return;
      list.hidden = true;
      list.textContent = "";
      active = -1;
    }
    function insert(id, replacing) {
      var url = form.getAttribute("data-quick-url").replace(/\/0\/$/, "/" + id + "/");
      fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (!data) return;
          if (replacing || !text.value.trim()) {
            text.value = data.text;
            text.setSelectionRange(text.value.length, text.value.length);
          } else {
            var start = text.selectionStart, end = text.selectionEnd;
            text.value = text.value.slice(0, start) + data.text + text.value.slice(end);
            text.setSelectionRange(start + data.text.length, start + data.text.length);
          }
          if (data.subject && subject && !subject.value) subject.value = data.subject;
          hideList();
          text.focus();
          save();
        });
    }
    function matches(query) {
      if (!select) return [];
      return Array.prototype.filter.call(select.options, function (option) {
        var name = (option.getAttribute("data-name") || "").toLowerCase();
        return option.value && !option.hidden && name.indexOf(query) !== -1;
      });
    }
    function mark(i) {
      var items = list.querySelectorAll("li");
      if (!items.length) return;
      active = (i + items.length) % items.length;
      Array.prototype.forEach.call(items, function (li, n) {
        li.classList.toggle("is-active", n === active);
        li.setAttribute("aria-selected", n === active ? "true" : "false");
      });
    }
    function suggest() {
      var typed = /^\/(\S*)$/.exec(text.value);
      if (!typed || !list) { hideList(); return; }
      var found = matches(typed[1].toLowerCase());
      list.textContent = "";
      found.forEach(function (option) {
        var li = document.createElement("li");
        li.setAttribute("role", "option");
        li.setAttribute("data-quick-reply", option.value);
        li.textContent = option.textContent;
        li.addEventListener("mousedown", function (event) {
          event.preventDefault();
          insert(option.value, true);
        });
        list.appendChild(li);
      });
      list.hidden = !found.length;
      active = -1;
      if (found.length) mark(0);
    }

    form.addEventListener("change", function (event) {
      if (event.target.hasAttribute("data-channel-choice")) { showChannel(); save(); }
    });
    text.addEventListener("input", function () { save(); suggest(); });
    text.addEventListener("blur", function () { window.setTimeout(hideList, 150); });
    text.addEventListener("keydown", function (event) {
      if (!list || list.hidden) return;
      if (event.key === "ArrowDown") { event.preventDefault(); mark(active + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); mark(active - 1); }
      else if (event.key === "Escape") { event.preventDefault(); hideList(); }
      else if (event.key === "Enter" || event.key === "Tab") {
        var chosen = list.querySelectorAll("li")[active];
        if (chosen) { event.preventDefault(); insert(chosen.getAttribute("data-quick-reply"), true); }
      }
    });
    if (subject) subject.addEventListener("input", save);
    if (select) {
      select.addEventListener("change", function () {
        if (select.value) insert(select.value, false);
        select.value = "";
      });
    }
  }

  /* htmx carries the old fields' style attribute over to the new ones (its settling):
     a browser may have left an empty one there (autofill), which the CSP refuses. */
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || !target.matches) return;
    if (!target.matches("[data-composer]") && !target.querySelector("[data-composer]")) return;
    Array.prototype.forEach.call(target.querySelectorAll("[style]"), function (el) {
      el.removeAttribute("style");
    });
  });

  function initAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-composer]"), init);
  }
  // A composer swapped in: after a send (the form itself) or in a conversation opened
  // from the inbox's list (inside the new pane).
  document.addEventListener("htmx:load", function (event) {
    var el = event.detail && event.detail.elt;
    if (!el || !el.matches) return;
    if (el.matches("[data-composer]")) init(el);
    else Array.prototype.forEach.call(el.querySelectorAll("[data-composer]"), init);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initAll);
  else initAll();
})();
