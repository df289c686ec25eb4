// Reader site: search as you type (/ or Ctrl-K), theme switch, copy
// buttons. Everything here is an enhancement: the pages work without it.
(function () {
  "use strict";
  var root = document.documentElement;
  var themes = ["system", "light", "dark"];
  var btn = document.getElementById("theme");
  function current() { return root.dataset.theme || "system"; }
  function label() { if (btn) { btn.setAttribute("aria-label", "Theme: " + current()); btn.title = "Theme: " + current(); } }
  if (btn) {
    btn.hidden = false;
    label();
    btn.addEventListener("click", function () {
      var next = themes[(themes.indexOf(current()) + 1) % themes.length];
      if (next === "system") { delete root.dataset.theme; } else { root.dataset.theme = next; }
      try { if (next === "system") { localStorage.removeItem("theme"); } else { localStorage.setItem("theme", next); } } catch (e) { /* private mode */ }
      label();
    });
  }

  document.querySelectorAll(".code .copy").forEach(function (b) {
    if (!navigator.clipboard) { return; }
    b.hidden = false;
    b.addEventListener("click", function () {
      var code = b.parentNode.querySelector("pre code");
      navigator.clipboard.writeText(code ? code.textContent : "").then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = "Copy"; }, 1500);
      }, function () { b.textContent = "Copy failed"; });
    });
  });

  var input = document.getElementById("q");
  var box = document.getElementById("results");
  var endpoint = document.body.dataset.search;
  if (!input || !box || !endpoint) { return; }
  document.addEventListener("keydown", function (e) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if ((e.key === "/" && !typing) || (e.key === "k" && (e.ctrlKey || e.metaKey))) {
      e.preventDefault();
      input.focus();
      input.select();
    }
  });
  var timer, seq = 0, selected = -1;
  function links() { return box.querySelectorAll("a"); }
  function select(i) {
    var ls = links();
    if (!ls.length) { return; }
    selected = (i + ls.length) % ls.length;
    ls.forEach(function (a, j) { a.setAttribute("aria-selected", j === selected ? "true" : "false"); });
    ls[selected].scrollIntoView({ block: "nearest" });
  }
  function show(items) {
    box.textContent = "";
    selected = -1;
    items.forEach(function (it) {
      var a = document.createElement("a");
      a.href = it.href;
      a.textContent = it.title;
      if (it.where) {
        var s = document.createElement("small");
        s.textContent = it.where;
        a.appendChild(s);
      }
      box.appendChild(a);
    });
    if (!items.length) {
      var p = document.createElement("a");
      p.textContent = "No results";
      p.removeAttribute("href");
      box.appendChild(p);
    }
    box.hidden = false;
  }
  input.addEventListener("input", function () {
    clearTimeout(timer);
    var q = input.value.trim();
    if (!q) { box.hidden = true; return; }
    timer = setTimeout(function () {
      var mine = ++seq;
      fetch(endpoint + "?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (items) { if (mine === seq) { show(items || []); } })
        .catch(function () { /* offline: the form still submits */ });
    }, 120);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") { e.preventDefault(); select(selected + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); select(selected - 1); }
    else if (e.key === "Escape") { box.hidden = true; input.blur(); }
  });
  // Submitting with results shown opens the chosen one (the first by
  // default); without them the form shows the results page.
  input.form.addEventListener("submit", function (e) {
    var ls = links();
    if (!box.hidden && ls.length && ls[0].href) {
      e.preventDefault();
      location.href = ls[Math.max(selected, 0)].href;
    }
  });
  document.addEventListener("click", function (e) { if (!box.contains(e.target) && e.target !== input) { box.hidden = true; } });
})();
