// The vx platform dashboard: reads the /v1 routes with the session cookie.
"use strict";

const $ = (id) => document.getElementById(id);
const H = { "X-VX-Dashboard": "1" };
let session = null;

async function api(path, opts = {}) {
  const resp = await fetch(path, { credentials: "same-origin", ...opts, headers: { ...H, ...(opts.headers || {}) } });
  if (resp.status === 401) { showLogin(); throw new Error("signed out"); }
  const body = resp.status === 204 ? {} : await resp.json();
  if (!resp.ok) throw new Error(body.error || resp.statusText);
  return body;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function row(tbody, cells, onClick) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    if (c instanceof Node) { const td = el("td"); td.appendChild(c); tr.appendChild(td); } else tr.appendChild(el("td", c));
  }
  if (onClick) { tr.className = "clickable"; tr.addEventListener("click", onClick); }
  tbody.appendChild(tr);
  return tr;
}

const fmtTime = (s) => (s ? new Date(s).toLocaleString() : "");
function fmtMs(ms) {
  if (ms < 1000) return ms + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
  return Math.floor(ms / 60000) + "m" + Math.round((ms % 60000) / 1000) + "s";
}
function fmtBytes(n) {
  if (!n) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return n.toFixed(i ? 1 : 0) + " " + u[i];
}

function show(id) {
  for (const s of ["login", "overview", "tokens"]) $(s).hidden = s !== id;
  $("nav").hidden = id === "login";
}

function showLogin() { session = null; $("who").textContent = ""; show("login"); }

function wsParam() {
  const v = $("workspace").value;
  return v ? "workspace=" + encodeURIComponent(v) : "";
}

async function start() {
  try {
    session = await api("/v1/session");
  } catch (e) { return; }
  $("who").textContent = session.org + " · " + session.scope + (session.workspace ? " · " + session.workspace : "");
  $("nav-tokens").hidden = session.scope !== "admin";
  await loadWorkspaces();
  await overview();
}

async function loadWorkspaces() {
  const out = await api("/v1/workspaces");
  const sel = $("workspace"); sel.textContent = "";
  const tb = $("workspaces").tBodies[0]; tb.textContent = "";
  for (const w of out.workspaces) {
    const o = el("option", w.slug); o.value = w.id; sel.appendChild(o);
    row(tb, [w.slug, w.runCount, fmtTime(w.lastSeen)], () => { sel.value = w.id; overview(); });
  }
}

async function overview() {
  show("overview");
  $("error").textContent = "";
  if (!$("workspace").value) { $("error").textContent = "No workspace has pushed a run yet."; return; }
  const q = wsParam();
  const [runs, cache, trends, flaky] = await Promise.all([
    api("/v1/runs?limit=50&" + q), api("/v1/cache?" + q),
    api("/v1/trends?bucket=" + $("bucket").value + "&limit=" + ($("bucket").value === "day" ? 30 : 48) + "&" + q), api("/v1/flaky?" + q),
  ]);
  const tb = $("runs").tBodies[0]; tb.textContent = "";
  for (const r of runs.runs) {
    row(tb, [el("code", r.runId), fmtTime(r.startedAt), r.command, r.gitBranch, el("span", r.status, r.status), r.tasks, r.failed,
      r.hits + " (" + r.localHits + "/" + r.remoteHits + ")", fmtMs(r.durationMs)], () => showRun(r.runId));
  }
  const dl = $("cache"); dl.textContent = "";
  const pairs = [["runs", cache.runs24h], ["executions", cache.executions24h], ["hits", cache.hits24h],
    ["hit rate", (cache.hitRate24h * 100).toFixed(1) + " %"], ["local hits", cache.localHits24h], ["remote hits", cache.remoteHits24h],
    ["entries written", cache.entries], ["entry bytes", fmtBytes(cache.bytes) + (cache.entriesSized < cache.entries ? " (" + cache.entriesSized + " sized)" : "")]];
  for (const [k, v] of pairs) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v)); }
  const ft = $("flaky").tBodies[0]; ft.textContent = "";
  if (!flaky.tasks.length) row(ft, ["none: no key both passed and failed", "", "", ""]);
  for (const f of flaky.tasks) row(ft, [f.taskId, f.flakyKeys, f.passes, f.failures]);
  chart(trends);
  if (runs.runs.length && $("run").hidden) showRun(runs.runs[0].runId);
}

async function showRun(id) {
  const out = await api("/v1/runs/" + encodeURIComponent(id) + "?" + wsParam());
  $("run").hidden = false;
  $("run-id").textContent = id;
  const tb = $("tasks").tBodies[0]; tb.textContent = "";
  for (const t of out.tasks) {
    const cache = t.cache + (t.cacheSource ? " (" + t.cacheSource + ")" : "");
    row(tb, [t.taskId, el("span", t.status, t.status), cache, fmtMs(t.durationMs), t.exitCode === null ? "" : t.exitCode,
      t.peakRssBytes ? fmtBytes(t.peakRssBytes) : "", t.reason || (t.blockedBy ? "blocked by " + t.blockedBy.join(", ") : "")]);
  }
}

// chart draws grouped bars per bucket, oldest left, with a y axis of
// round ticks and x labels that never repeat.
function chart(trends) {
  const svg = $("trends"); svg.textContent = "";
  const NS = "http://www.w3.org/2000/svg";
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e); return e;
  };
  const b = trends.buckets.slice().reverse();
  const W = 720, Hh = 220, L = 40, R = 10, T = 10, B = 30;
  if (!b.length) { add("text", { x: W / 2, y: Hh / 2, "text-anchor": "middle" }, "no runs yet"); return; }
  const max = Math.max(1, ...b.map((x) => Math.max(x.runs, x.localHits + x.remoteHits)));
  const step = Math.pow(10, Math.floor(Math.log10(max))); const top = Math.ceil(max / step) * step;
  const y = (v) => T + (Hh - T - B) * (1 - v / top);
  const ticks = top < 4 ? top : 4;
  for (let i = 0; i <= ticks; i++) {
    const v = (top * i) / ticks;
    add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e3e6ea" });
    add("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end" }, Number.isInteger(v) ? v : v.toFixed(1));
  }
  const bw = (W - L - R) / b.length;
  const every = Math.ceil(b.length / 8);
  b.forEach((x, i) => {
    const x0 = L + i * bw, w = Math.max(1, bw / 3 - 1);
    add("rect", { x: x0 + 1, y: y(x.runs), width: w, height: y(0) - y(x.runs), fill: "var(--runs)" }).appendChild(document.createElementNS(NS, "title")).textContent = x.runs + " runs";
    add("rect", { x: x0 + 1, y: y(x.failedRuns), width: w, height: y(0) - y(x.failedRuns), fill: "var(--failed)" });
    add("rect", { x: x0 + 1 + w + 1, y: y(x.localHits), width: w, height: y(0) - y(x.localHits), fill: "var(--local)" });
    add("rect", { x: x0 + 1 + w + 1, y: y(x.localHits + x.remoteHits), width: w, height: y(x.localHits) - y(x.localHits + x.remoteHits), fill: "var(--remote)" });
    if (i % every === 0) {
      const d = new Date(x.start);
      const label = trends.bucket === "day" ? d.toISOString().slice(5, 10) : d.toISOString().slice(5, 10) + " " + d.toISOString().slice(11, 13) + "h";
      add("text", { x: x0 + bw / 2, y: Hh - B + 14, "text-anchor": "middle" }, label);
    }
  });
  add("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#667085" });
  add("line", { x1: L, x2: L, y1: T, y2: y(0), stroke: "#667085" });
}

async function tokens() {
  show("tokens");
  const out = await api("/v1/admin/tokens");
  const tb = $("token-list").tBodies[0]; tb.textContent = "";
  for (const t of out.tokens) {
    const btn = el("button", "Revoke"); btn.type = "button"; btn.disabled = !!t.revokedAt;
    btn.addEventListener("click", async () => {
      await api("/v1/admin/tokens/" + encodeURIComponent(t.id) + "/revoke", { method: "POST" });
      tokens();
    });
    row(tb, [el("code", t.id), t.scope, t.workspace || "(all)", t.name, fmtTime(t.createdAt), fmtTime(t.revokedAt), btn]);
  }
}

function wire() {
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("login-error").textContent = "";
    const resp = await fetch("/login", { method: "POST", headers: H, body: new URLSearchParams({ token: $("token").value }) });
    $("token").value = "";
    if (!resp.ok) { $("login-error").textContent = (await resp.json()).error; return; }
    start();
  });
  $("logout").addEventListener("click", async () => { await fetch("/logout", { method: "POST", headers: H }); showLogin(); });
  $("workspace").addEventListener("change", () => { $("run").hidden = true; overview(); });
  $("bucket").addEventListener("change", overview);
  $("nav-overview").addEventListener("click", overview);
  $("nav-tokens").addEventListener("click", tokens);
  $("token-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = await api("/v1/admin/tokens", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scope: $("new-scope").value, workspace: $("new-workspace").value, name: $("new-name").value }) });
    const p = $("new-secret"); p.textContent = "New token (shown once): ";
    p.appendChild(el("code", out.secret));
    tokens();
  });
  window.addEventListener("unhandledrejection", (ev) => {
    if (ev.reason && ev.reason.message !== "signed out") $("error").textContent = ev.reason.message;
  });
}

wire();
start();
