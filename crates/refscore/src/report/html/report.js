(function () {
  "use strict";
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("data").textContent);
  var names = data.evaluators;
  var rows = data.rows; // [id, row, status, rowScore, scores[], evStatus[], extra]
  var extra = data.extra; // per failed row: {ev: {name: {d, m, x}}, e?, o?, r?}
  var STATUS = ["passed", "failed", "error"];
  var state = { page: 0, list: rows, open: {}, focus: null };

  // Characters that would not show as themselves: control characters,
  // bidirectional controls (which reorder the text around them), the line
  // and paragraph separators, U+FFFE and U+FFFF (report::text::hidden).
  // They show as the escapes the server side and the console write
  // (\u{1b}, \t, \n, \r).
  var HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufffe\uffff]/g;
  var NAMED = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
  function vis(s) {
    return String(s).replace(HIDDEN, function (c) { return NAMED[c] || "\\u{" + c.charCodeAt(0).toString(16) + "}"; });
  }
  // JSON text (JSON.stringify's) with the hidden characters it leaves as
  // they are written as JSON's own escapes (\u202e): still JSON, copied.
  function jsonVis(s) {
    return String(s).replace(HIDDEN, function (c) { return "\\u" + ("000" + c.charCodeAt(0).toString(16)).slice(-4); });
  }
  // An element; its text, string children and title are shown with vis.
  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") n.textContent = vis(attrs[k]);
      else if (k === "cls") n.className = attrs[k];
      else if (k === "title") n.setAttribute(k, vis(attrs[k]));
      else n.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c != null) n.appendChild(typeof c === "string" ? document.createTextNode(vis(c)) : c); });
    return n;
  }
  function fmt(x) {
    if (x === null || x === undefined) return "—";
    return Number.isInteger(x) ? String(x) : x.toFixed(3);
  }

  // ---- filtering -------------------------------------------------------
  var fEval = document.getElementById("f-evaluator");
  var fStatus = document.getElementById("f-status");
  var fText = document.getElementById("f-text");
  // What the text filter looks in: the id, and of a failed row its
  // failing paths, its checks' reasons, its evaluations' errors and the
  // error of an unreadable row.
  function searchText(r) {
    var t = r[0].toLowerCase();
    if (r[6] >= 0) {
      var x = extra[r[6]];
      for (var name in x.ev) {
        var v = x.ev[name];
        v.d.forEach(function (d) {
          t += "\n" + String(d[0]).toLowerCase();
          if (d[4]) t += "\n" + String(d[4]).toLowerCase();
        });
        if (v.x) t += "\n" + String(v.x).toLowerCase();
      }
      if (x.e) t += "\n" + x.e.toLowerCase();
    }
    return t;
  }
  function applyFilters() {
    var st = fStatus.value, q = fText.value.trim().toLowerCase();
    var idx = fEval.value === "" ? -1 : Number(fEval.value);
    state.list = rows.filter(function (r) {
      var s = idx >= 0 ? r[5][idx] : r[2];
      if (st === "passed" && s !== 0) return false;
      if (st === "failed" && s === 0) return false;
      if (st === "error" && s !== 2) return false;
      if (q && searchText(r).indexOf(q) < 0) return false;
      return true;
    });
    if (idx >= 0 && !st) {
      // Worst first for the chosen evaluator: failed and errored rows lead.
      state.list = state.list.slice().sort(function (a, b) { return b[5][idx] - a[5][idx] || a[1] - b[1]; });
    }
    state.page = 0;
    render();
  }
  [fEval, fStatus].forEach(function (n) { n.addEventListener("change", applyFilters); });
  var timer = null;
  fText.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(applyFilters, 150); });

  // ---- the row table ---------------------------------------------------
  var tbody = document.querySelector("#rows tbody");
  var prev = document.getElementById("prev"), next = document.getElementById("next");
  prev.addEventListener("click", function () { state.page--; render(); });
  next.addEventListener("click", function () { state.page++; render(); });

  function render() {
    var pages = Math.max(1, Math.ceil(state.list.length / PAGE));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    var from = state.page * PAGE, slice = state.list.slice(from, from + PAGE);
    var frag = document.createDocumentFragment();
    slice.forEach(function (r) {
      var open = !!state.open[r[1]];
      var tr = el("tr", { cls: "row", "data-id": r[0], "data-status": STATUS[r[2]] }, [
        r[6] >= 0 ? el("td", { cls: "toggle" }, [el("button", {
          type: "button", "data-row": String(r[1]), "aria-expanded": String(open),
          "aria-label": "checks of row " + r[1], text: open ? "▾" : "▸"
        })])
          : el("td", { cls: "toggle", text: r[2] ? "·" : "", title: r[2] ? "checks not embedded in this report: see results.jsonl" : "" }),
        el("td", { cls: "id" }, [el("code", { text: r[0], title: r[0] })]),
        el("td", { text: String(r[1]) }),
        el("td", {}, [el("span", { cls: "status " + STATUS[r[2]], text: STATUS[r[2]] })]),
        el("td", { text: fmt(r[3]) })
      ]);
      names.forEach(function (_, i) { tr.appendChild(el("td", { cls: "s" + r[5][i], text: r[5][i] === 2 ? "error" : fmt(r[4][i]) })); });
      // A click anywhere on the row, or Enter or Space on its button.
      if (r[6] >= 0) tr.addEventListener("click", function () { toggle(r); });
      frag.appendChild(tr);
      if (state.open[r[1]]) frag.appendChild(detailRow(r));
    });
    tbody.replaceChildren(frag);
    if (state.focus != null) {
      // The row's button was replaced: focus stays on it.
      var b = tbody.querySelector('button[data-row="' + state.focus + '"]');
      if (b) b.focus();
      state.focus = null;
    }
    // Each side scrolls to its first failing path.
    tbody.querySelectorAll(".sides pre").forEach(function (pre) {
      var hl = pre.querySelector(".hl");
      if (hl) pre.scrollTop = Math.max(0, hl.getBoundingClientRect().top - pre.getBoundingClientRect().top - 60);
    });
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("count").textContent = state.list.length + " of " + rows.length + " rows";
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }
  function toggle(r) {
    if (state.open[r[1]]) delete state.open[r[1]]; else state.open[r[1]] = true;
    state.focus = tbody.contains(document.activeElement) ? r[1] : null;
    render();
  }

  // ---- an expanded row -------------------------------------------------
  function detailRow(r) {
    var x = extra[r[6]];
    var box = el("div", { cls: "detail" }, [el("p", { cls: "rowid" }, ["Row " + r[1] + " ", el("code", { text: r[0] })])]);
    if (x.e) box.appendChild(el("p", { cls: "s2", text: "Unreadable: " + x.e }));
    var paths = {};
    names.forEach(function (name) {
      var v = x.ev[name];
      if (!v) return;
      box.appendChild(el("h4", { text: name }));
      if (v.x) box.appendChild(el("p", { cls: "s2", text: "Evaluation failed: " + v.x }));
      if (v.d.length) {
        var body = el("tbody");
        v.d.forEach(function (d) {
          if (d[0].charAt(0) === "$") paths[d[0]] = true;
          body.appendChild(el("tr", {}, [
            el("td", {}, [el("code", { text: d[0] })]), el("td", { text: d[1] }),
            el("td", { cls: "mono", text: d[2] == null ? "" : d[2] }), el("td", { cls: "mono", text: d[3] == null ? "" : d[3] }),
            el("td", { text: d[4] || "" })
          ]));
        });
        box.appendChild(el("table", { cls: "checks" }, [
          el("thead", {}, [el("tr", {}, ["Check", "Outcome", "Expected", "Actual", "Reason"].map(function (h) { return el("th", { text: h }); }))]),
          body
        ]));
        if (v.m) box.appendChild(el("p", { cls: "hint", text: "+ " + v.m + " more" }));
      }
    });
    if ("o" in x || "r" in x) {
      box.insertBefore(el("div", { cls: "sides" }, [
        el("div", {}, [el("h4", { text: "Output" }), jsonPre(x.o, paths)]),
        el("div", {}, [el("h4", { text: "Reference" }), jsonPre(x.r, paths)])
      ]), box.firstChild.nextSibling);
    } else {
      box.appendChild(el("p", { cls: "hint", text: "Output and reference are not embedded for this row." }));
    }
    return el("tr", { cls: "open" }, [el("td", { colspan: String(5 + names.length) }, [box])]);
  }

  // ---- JSON with the failing paths highlighted --------------------------
  var IDENT = /^[\p{L}_][\p{L}\p{N}_]*$/u;
  function keyPath(base, k) {
    if (IDENT.test(k)) return base + "." + k;
    return base + "['" + k.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "']";
  }
  function jsonPre(v, paths) {
    if (typeof v === "string") {
      try { var parsed = JSON.parse(v); if (parsed && typeof parsed === "object") v = parsed; } catch (e) { /* text */ }
    }
    var pre = el("pre");
    // Plain text keeps its lines; anything else hidden shows escaped.
    if (typeof v === "string") { pre.textContent = v.split("\n").map(vis).join("\n"); return pre; }
    write(pre, v, "$", paths, "");
    return pre;
  }
  function write(out, v, path, paths, indent) {
    var target = out;
    if (paths[path]) { target = el("span", { cls: "hl", "data-path": path }); out.appendChild(target); }
    if (Array.isArray(v)) {
      if (!v.length) { target.appendChild(document.createTextNode("[]")); return; }
      target.appendChild(document.createTextNode("[\n"));
      v.forEach(function (item, i) {
        target.appendChild(document.createTextNode(indent + "  "));
        write(target, item, path + "[" + i + "]", paths, indent + "  ");
        target.appendChild(document.createTextNode(i + 1 < v.length ? ",\n" : "\n"));
      });
      target.appendChild(document.createTextNode(indent + "]"));
    } else if (v && typeof v === "object") {
      var keys = Object.keys(v);
      if (!keys.length) { target.appendChild(document.createTextNode("{}")); return; }
      target.appendChild(document.createTextNode("{\n"));
      keys.forEach(function (k, i) {
        var p = keyPath(path, k);
        target.appendChild(document.createTextNode(indent + "  " + jsonVis(JSON.stringify(k)) + ": "));
        write(target, v[k], p, paths, indent + "  ");
        target.appendChild(document.createTextNode(i + 1 < keys.length ? ",\n" : "\n"));
      });
      target.appendChild(document.createTextNode(indent + "}"));
    } else {
      target.appendChild(document.createTextNode(v === undefined ? "(none)" : jsonVis(JSON.stringify(v))));
    }
  }

  // ---- the sortable field table -----------------------------------------
  var fields = document.getElementById("fields");
  if (fields) {
    fields.querySelectorAll("th").forEach(function (th, col) {
      // A button per heading: it sorts by mouse and by keyboard alike.
      var button = el("button", { type: "button", cls: "sort", text: th.textContent });
      th.replaceChildren(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        var asc = !th.classList.contains("asc");
        fields.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); h.setAttribute("aria-sort", "none"); });
        th.classList.add(asc ? "asc" : "desc");
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var num = th.getAttribute("data-type") === "num";
        var body = fields.tBodies[0];
        var list = Array.prototype.slice.call(body.rows);
        list.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var c = num ? parseFloat(x.getAttribute("data-v") || x.textContent) - parseFloat(y.getAttribute("data-v") || y.textContent)
            : x.textContent.localeCompare(y.textContent);
          return asc ? c : -c;
        });
        list.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  render();
  document.body.setAttribute("data-ready", "true");
  // Milliseconds from navigation start until the row table works.
  document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
