// vxui: page components shared by vxd's status page and the vx platform's
// dashboard. Everything is built with DOM calls (no HTML strings), so no
// text from a run can become markup.
"use strict";
const vxui = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function fmtMs(ms) {
    if (ms === null || ms === undefined) return "";
    if (ms < 1000) return Math.round(ms) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
    return Math.floor(ms / 60000) + "m" + String(Math.round((ms % 60000) / 1000)).padStart(2, "0") + "s";
  }

  function fmtBytes(n) {
    if (!n) return "0 B";
    const u = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return n.toFixed(i ? 1 : 0) + " " + u[i];
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function svg(parent, tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    parent.appendChild(e);
    return e;
  }

  // scale picks a round top for values up to max and its ticks.
  function scale(max) {
    if (!(max > 0)) max = 1;
    const step = Math.pow(10, Math.floor(Math.log10(max)));
    let top = Math.ceil(max / step) * step;
    if (top / step > 5 && (top / step) % 2) top += step;
    const n = top / step > 5 ? top / step / 2 : top / step;
    const ticks = [];
    for (let i = 0; i <= n; i++) ticks.push((top * i) / n);
    return { top, ticks };
  }

  const tick = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

  // row appends a table row of cells (text or nodes); onClick makes it a link.
  function row(tbody, cells, onClick) {
    const tr = document.createElement("tr");
    for (const c of cells) {
      const td = el("td");
      if (c instanceof Node) td.appendChild(c); else if (c !== undefined && c !== null) td.textContent = String(c);
      tr.appendChild(td);
    }
    if (onClick) { tr.className = "clickable"; tr.addEventListener("click", onClick); }
    tbody.appendChild(tr);
    return tr;
  }

  // table fills a tbody with one row per item, or one muted row saying
  // why there is none.
  function table(tbody, items, cells, empty, onClick) {
    tbody.textContent = "";
    if (!items.length) {
      const tr = row(tbody, [empty]);
      tr.firstChild.colSpan = tbody.parentElement.tHead ? tbody.parentElement.tHead.rows[0].cells.length : 1;
      tr.firstChild.className = "muted";
      return;
    }
    for (const it of items) row(tbody, cells(it), onClick ? () => onClick(it) : undefined);
  }

  // fromHistory turns recorded task rows ({taskId, status, cache,
  // startedAt, durationMs}) into timeline tasks on the fewest lanes.
  function fromHistory(rows) {
    const tasks = [];
    let skipped = 0;
    for (const r of rows) {
      if (!r.startedAt || (r.status !== "passed" && r.status !== "failed" && r.status !== "timedOut" && r.status !== "interrupted")) { skipped++; continue; }
      const start = Date.parse(r.startedAt);
      if (Number.isNaN(start) || start <= 0) { skipped++; continue; }
      tasks.push({ id: r.taskId, start, end: start + (r.durationMs || 0), status: r.status, cache: r.cache, deps: r.dependsOn || [] });
    }
    tasks.sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
    const laneEnds = [];
    for (const t of tasks) {
      let lane = laneEnds.findIndex((end) => end <= t.start);
      if (lane < 0) { lane = laneEnds.length; laneEnds.push(0); }
      laneEnds[lane] = t.end;
      t.lane = lane;
    }
    const start = tasks.length ? Math.min(...tasks.map((t) => t.start)) : 0;
    const end = tasks.length ? Math.max(...tasks.map((t) => t.end)) : 0;
    return { start, end, lanes: laneEnds.length, tasks, skipped };
  }

  // markCritical marks the chain that ended last: from the task that
  // finished last, back through the dependency that finished last
  // (without dependency data, the last task alone).
  function markCritical(tasks) {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    for (const t of tasks) t.critical = false;
    let last = null;
    for (const t of tasks) if (t.lane >= 0 && t.end && (!last || t.end > last.end)) last = t;
    for (let t = last; t; ) {
      t.critical = true;
      let prev = null;
      const cands = t.deps && t.deps.length ? t.deps.map((d) => byId.get(d)).filter(Boolean) : [];
      for (const u of cands) if (u.end && !u.critical && (!prev || u.end > prev.end)) prev = u;
      t = prev;
    }
  }

  // timeline draws a run's tasks as bars on worker lanes over a time axis.
  // run: {start, end (null while running), lanes, tasks: [{id, lane,
  // start, end, status, cache, critical}]}; state goes to data-state.
  function timeline(box, run, state, now) {
    box.textContent = "";
    box.classList.add("vx-timeline");
    box.dataset.state = state;
    const end = run.end || now || Date.now();
    const span = Math.max(end - run.start, 1);
    const lanes = [];
    for (let i = 0; i < run.lanes; i++) lanes.push(box.appendChild(el("div", null, "lane")));
    for (const t of run.tasks) {
      if (t.lane < 0 || !lanes[t.lane]) continue;
      const tEnd = t.end || end;
      const label = t.id + (t.end ? " " + fmtMs(t.end - t.start) : "");
      const bar = el("div", label, ["bar", t.status, t.cache === "hit" ? "hit" : "", t.critical ? "critical" : ""].filter(Boolean).join(" "));
      bar.dataset.task = t.id;
      bar.dataset.status = t.status;
      bar.title = label + " " + t.status + (t.cache ? " (" + t.cache + ")" : "");
      bar.style.left = ((t.start - run.start) / span) * 100 + "%";
      bar.style.width = "max(3px, " + ((tEnd - t.start) / span) * 100 + "%)";
      lanes[t.lane].appendChild(bar);
    }
    // No task with a time (all cached without timing, blocked, skipped):
    // no axis, whose span would run from 1970 to now.
    if (!run.tasks.some((t) => t.lane >= 0) || !(run.start > 0)) {
      if (run.skipped) box.appendChild(el("p", run.skipped + " task(s) not executed (cached without timing, blocked or skipped) are not drawn", "skipped"));
      return;
    }
    const axis = box.appendChild(el("div", null, "axis"));
    for (const f of [0, 0.25, 0.5, 0.75, 1]) {
      const s = axis.appendChild(el("span", f === 0 ? "0" : fmtMs(span * f)));
      s.style.left = f * 100 + "%";
      if (f === 1) s.style.transform = "translateX(-100%)";
    }
    if (run.skipped) box.appendChild(el("p", run.skipped + " task(s) not executed (cached without timing, blocked or skipped) are not drawn", "skipped"));
  }

  // chartWidth is the pixel width a chart is drawn at: its box's, so that
  // its text keeps the stylesheet's size (a chart scaled down to a phone
  // drew 5 px labels).
  function chartWidth(box) {
    return Math.max(240, Math.floor(box.clientWidth || 720));
  }

  // redrawOnResize redraws a chart when its box's width changes.
  function redrawOnResize(box, draw) {
    box.vxDraw = draw;
    if (box.vxObserved || typeof ResizeObserver === "undefined") return;
    box.vxObserved = true;
    let width = box.clientWidth;
    new ResizeObserver(() => {
      if (Math.abs(box.clientWidth - width) < 2) return;
      width = box.clientWidth;
      box.vxDraw();
    }).observe(box);
  }

  // trendChart draws buckets (newest first, as the tools answer them)
  // oldest left: per bucket a bar of runs with its failed share and a bar
  // of hits split into local and remote when known; a y axis of round
  // ticks and x labels that never repeat.
  function trendChart(box, buckets, bucket) {
    redrawOnResize(box, () => trendChart(box, buckets, bucket));
    box.textContent = "";
    const W = chartWidth(box), H = 220, L = 40, R = 10, T = 10, B = 30;
    const root = svg(box, "svg", { viewBox: `0 0 ${W} ${H}`, class: "vx-chart", role: "img", width: W, height: H });
    const b = buckets.slice().reverse();
    if (!b.length) { svg(root, "text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no runs yet"); return; }
    const hits = (x) => (x.localHits !== undefined ? x.localHits + x.remoteHits : x.hits);
    const { top, ticks } = scale(Math.max(...b.map((x) => Math.max(x.runs, hits(x)))));
    const y = (v) => T + (H - T - B) * (1 - v / top);
    for (const v of ticks) {
      svg(root, "line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e3e6ea" });
      svg(root, "text", { x: L - 4, y: y(v) + 3, "text-anchor": "end" }, tick(v));
    }
    // An x label is ~70 px wide: as many as fit, never overlapping.
    const fit = Math.max(1, Math.floor((W - L - R) / 80));
    const bw = (W - L - R) / b.length, w = Math.min(40, Math.max(1, bw / 3 - 1)), every = Math.ceil(b.length / Math.min(8, fit));
    const label = (d) => {
      const iso = d.toISOString();
      return bucket === "day" ? iso.slice(5, 10) : iso.slice(5, 10) + " " + iso.slice(11, 13) + "h";
    };
    const bar = (x, v0, v1, fill, title) => {
      if (v1 <= v0) return;
      const r = svg(root, "rect", { x, y: y(v1), width: w, height: y(v0) - y(v1), fill });
      svg(r, "title", {}, title);
    };
    b.forEach((x, i) => {
      const x0 = L + i * bw + (bw - 2 * w - 3) / 2;
      const when = label(new Date(x.start));
      bar(x0 + 1, 0, x.runs, "#4f6bed", `${when}: ${x.runs} runs`);
      bar(x0 + 1, 0, x.failedRuns, "#d64545", `${when}: ${x.failedRuns} failed`);
      if (x.localHits !== undefined) {
        bar(x0 + w + 2, 0, x.localHits, "#2f9e6b", `${when}: ${x.localHits} local hits`);
        bar(x0 + w + 2, x.localHits, x.localHits + x.remoteHits, "#e39b2d", `${when}: ${x.remoteHits} remote hits`);
      } else {
        bar(x0 + w + 2, 0, x.hits, "#2f9e6b", `${when}: ${x.hits} hits of ${x.executions}`);
      }
      if (i % every === 0) svg(root, "text", { x: L + i * bw + bw / 2, y: H - B + 14, "text-anchor": "middle" }, when);
    });
    svg(root, "line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#667085" });
    svg(root, "line", { x1: L, x2: L, y1: T, y2: y(0), stroke: "#667085" });
    const legend = box.appendChild(el("p", null, "vx-legend"));
    const series = [["#4f6bed", "runs"], ["#d64545", "failed"]].concat(b[0].localHits !== undefined ? [["#2f9e6b", "local hits"], ["#e39b2d", "remote hits"]] : [["#2f9e6b", "cache hits"]]);
    for (const [color, name] of series) {
      const sw = legend.appendChild(el("span", null, "sw"));
      sw.style.background = color;
      legend.appendChild(document.createTextNode(name));
    }
  }

  // durationChart draws one row per item ({label, p50, p99?}) as bars
  // against a labelled millisecond axis; all rows are drawn.
  function durationChart(box, items) {
    redrawOnResize(box, () => durationChart(box, items));
    box.textContent = "";
    if (!items.length) { box.appendChild(el("p", "no executed tasks yet", "muted")); return; }
    const W = chartWidth(box), rowH = 20, L = Math.min(200, Math.round(W * 0.36)), R = 110, T = 4, B = 20;
    const H = T + items.length * rowH + B;
    const chars = Math.max(8, Math.floor(L / 7) - 1); // ~7 px a character at 12 px
    const root = svg(box, "svg", { viewBox: `0 0 ${W} ${H}`, class: "vx-chart", width: W, height: H });
    const { top, ticks } = scale(Math.max(...items.map((t) => t.p99 || t.p50)));
    const x = (v) => L + (W - L - R) * (v / top);
    // A tick label is up to ~60 px wide: every other one when they crowd.
    const step = (W - L - R) / Math.max(1, ticks.length - 1) < 64 ? 2 : 1;
    for (const v of ticks.filter((_, i) => i % step === 0)) {
      svg(root, "line", { x1: x(v), x2: x(v), y1: T, y2: H - B, stroke: "#e3e6ea" });
      svg(root, "text", { x: x(v), y: H - 6, "text-anchor": "middle" }, fmtMs(v));
    }
    items.forEach((t, i) => {
      const y0 = T + i * rowH;
      svg(svg(root, "text", { x: L - 6, y: y0 + 14, "text-anchor": "end" }, t.label.length > chars ? "…" + t.label.slice(-(chars - 1)) : t.label), "title", {}, t.label);
      if (t.p99 !== undefined) svg(root, "rect", { x: L, y: y0 + 4, width: Math.max(1, x(t.p99) - L), height: 12, fill: "#cfdcfb" });
      svg(svg(root, "rect", { x: L, y: y0 + 4, width: Math.max(1, x(t.p50) - L), height: 12, fill: "#5b8def" }), "title", {}, t.label);
      svg(root, "text", { x: W - R + 4, y: y0 + 14 }, t.p99 !== undefined ? fmtMs(t.p50) + " / " + fmtMs(t.p99) : fmtMs(t.p50));
    });
    svg(root, "line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#667085" });
  }

  // relPath names a file relative to root when it is under it.
  function relPath(file, root) {
    if (root && file.startsWith(root.replace(/\/$/, "") + "/")) return file.slice(root.replace(/\/$/, "").length + 1);
    return file;
  }

  // locText is a location as a reader types it: file:line:col.
  function locText(l, root) {
    return relPath(l.file, root) + (l.line ? ":" + l.line + (l.col ? ":" + l.col : "") : "");
  }

  // failureLine is one line saying why a task failed: its first location
  // and message, or its reason.
  function failureLine(f, root) {
    const l = (f.locations || [])[0];
    if (l) return locText(l, root) + (l.message ? " " + l.message : "");
    return f.reason || f.status;
  }

  // failure shows why one task failed ({taskId, status, exitCode, reason,
  // locations: [{file, line, col, message}], output, truncated}): the
  // locations, then the output's excerpt in a box that scrolls.
  function failure(f, root) {
    const box = el("div", null, "failure");
    box.dataset.task = f.taskId;
    const h = box.appendChild(el("h3"));
    h.appendChild(el("span", f.taskId));
    const exit = f.exitCode !== null && f.exitCode !== undefined ? "exit " + f.exitCode : "";
    // The reason, unless it only repeats the exit code.
    const reason = f.reason && f.reason !== "exited with code " + f.exitCode ? f.reason : "";
    const what = [f.status, exit, reason].filter(Boolean).join(" · ");
    h.appendChild(el("span", " " + what, "muted"));
    const locs = f.locations || [];
    if (locs.length) {
      const ul = box.appendChild(el("ul", null, "locations"));
      for (const l of locs.slice(0, 10)) {
        const li = ul.appendChild(el("li"));
        li.appendChild(el("code", locText(l, root), "loc"));
        if (l.message) li.appendChild(document.createTextNode(" " + l.message));
      }
      if (locs.length > 10) ul.appendChild(el("li", "… " + (locs.length - 10) + " more", "muted"));
    }
    if (f.output) {
      box.appendChild(el("pre", f.output, "excerpt"));
      if (f.truncated) box.appendChild(el("p", "an excerpt: vx last --log " + f.taskId + " prints the whole output where it ran", "muted"));
    } else {
      box.appendChild(el("p", "the task printed nothing", "muted"));
    }
    return box;
  }

  return { fmtMs, fmtBytes, el, row, table, fromHistory, markCritical, timeline, trendChart, durationChart, failure, failureLine };
})();
