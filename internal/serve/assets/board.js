// The board follows the repository: the server sends a stamp on /events
// whenever what the board shows may have changed, and the board reads
// itself again and swaps its <main>. No other script, no other origin.
"use strict";
(function () {
  var root = document.documentElement;
  var live = function (text, cls) {
    var el = document.getElementById("live");
    if (el) { el.textContent = text; el.className = cls; }
  };
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname, { cache: "no-store" }).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var next = doc.getElementById("board"), cur = document.getElementById("board");
      if (next && cur) {
        cur.replaceWith(document.adoptNode(next));
        root.setAttribute("data-stamp", next.getAttribute("data-stamp") || "");
      }
      var top = doc.getElementById("top"), mine = document.getElementById("top");
      if (top && mine) { mine.replaceWith(document.adoptNode(top)); }
      document.title = doc.title;
      live("live", "live");
    }).catch(function (e) {
      live("cannot read the board (" + e.message + "); retrying", "live off");
    }).finally(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }
  var es = new EventSource("/events");
  es.addEventListener("stamp", function (e) {
    if (e.data !== root.getAttribute("data-stamp")) { refresh(); }
  });
  es.onopen = function () { live("live", "live"); };
  es.onerror = function () { live("reconnecting…", "live off"); };
})();
