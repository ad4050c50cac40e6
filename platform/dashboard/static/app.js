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

const { el, row, fmtMs, fmtBytes } = vxui;
const fmtTime = (s) => (s ? new Date(s).toLocaleString() : "");

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
  vxui.trendChart($("trends"), trends.buckets, trends.bucket);
  if (runs.runs.length && $("run").hidden) showRun(runs.runs[0].runId);
}

async function showRun(id) {
  const out = await api("/v1/runs/" + encodeURIComponent(id) + "?" + wsParam());
  $("run").hidden = false;
  $("run-id").textContent = id;
  $("run-meta").textContent = out.run ? out.run.command + " · " + out.run.status + " · " + fmtMs(out.run.durationMs) : "";
  const tl = vxui.fromHistory(out.tasks);
  vxui.markCritical(tl.tasks);
  vxui.timeline($("run-timeline"), tl, "history");
  // Why each failed task failed: what vx pushed of its output (masked).
  const why = $("run-failures"); why.textContent = "";
  const failed = out.tasks.filter((t) => t.failure);
  for (const t of failed) {
    why.appendChild(vxui.failure({ taskId: t.taskId, status: t.status, exitCode: t.exitCode, reason: t.reason,
      locations: t.failure.locations, output: t.failure.excerpt, truncated: t.failure.truncated }));
  }
  const tb = $("tasks").tBodies[0]; tb.textContent = "";
  for (const t of out.tasks) {
    const cache = t.cache + (t.cacheSource ? " (" + t.cacheSource + ")" : "");
    const reason = t.failure ? vxui.failureLine({ ...t, locations: t.failure.locations }) : t.reason || (t.blockedBy ? "blocked by " + t.blockedBy.join(", ") : "");
    row(tb, [t.taskId, el("span", t.status, t.status), cache, fmtMs(t.durationMs), t.exitCode === null ? "" : t.exitCode,
      t.peakRssBytes ? fmtBytes(t.peakRssBytes) : "", reason]);
  }
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
