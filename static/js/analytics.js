/* The analytics page's charts: daily bars per channel, from the json_script blocks. */
(function () {
  "use strict";

  var COLOURS = {
    WHATSAPP: "#1f883d",
    EMAIL_COLD: "#1a56b8",
    EMAIL_WARM: "#b26a00",
  };

  // Figures and days in the page's language (<html lang>, from the active language):
  // 12.345 and 28 nov. in Romanian, 12,345 and 28 Nov in English (docs/locale.md).
  // Our English is European (en-GB: day before month), like cerniq/formats/en.
  var LOCALES = { en: "en-GB", ro: "ro-RO" };
  var PAGE_LANG = document.documentElement.lang || "ro";
  var LANG = LOCALES[PAGE_LANG] || PAGE_LANG;
  var NUMBER = new Intl.NumberFormat(LANG);
  var DAY = new Intl.DateTimeFormat(LANG, { day: "numeric", month: "short", timeZone: "UTC" });

  function dayLabel(iso) {
    var moment = new Date(iso + "T00:00:00Z");
    return isNaN(moment.getTime()) ? iso : DAY.format(moment);
  }

  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function draw(canvas, data, metric, labels) {
    var datasets = data.channels.map(function (channel) {
      var colour = COLOURS[channel.channel] || "#667085";
      return {
        label: channel.label,
        data: channel[metric],
        borderColor: colour,
        backgroundColor: colour,
      };
    });
    return new window.Chart(canvas, {
      type: "bar",
      data: { labels: data.days.map(dayLabel), datasets: datasets },
      options: {
        responsive: true,
        aspectRatio: 5,
        animation: false,
        interaction: { mode: "index", intersect: false },
        plugins: {
          legend: { position: "bottom" },
          title: { display: false, text: labels[metric] || metric },
          tooltip: {
            callbacks: {
              label: function (item) {
                return item.dataset.label + ": " + NUMBER.format(item.parsed.y);
              },
            },
          },
        },
        scales: {
          x: { ticks: { autoSkip: true, maxTicksLimit: 16, maxRotation: 0 } },
          y: {
            beginAtZero: true,
            ticks: {
              precision: 0,
              callback: function (value) {
                return NUMBER.format(value);
              },
            },
          },
        },
      },
    });
  }

  function init() {
    var data = readJson("analytics-data");
    var labels = readJson("analytics-labels") || {};
    if (!data || !window.Chart) {
      return;
    }
    document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      draw(canvas, data, canvas.getAttribute("data-chart"), labels);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
