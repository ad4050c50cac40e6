// Drives vx-platform's dashboard in headless Chromium: sign in with a
// token (the browser keeps a session cookie, never the token), read the
// overview, a run's tasks and the trends chart, then Admin → Tokens:
// create, list and revoke a token. Arguments come from the Go test
// (tests/platform) through the environment.
import { chromium } from "playwright-core";
import { overflowing, smallLabels } from "./narrow.mjs";

const { PLATFORM_URL, ADMIN_TOKEN, SHOTS } = process.env;
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
// until waits for cond in the page, failing with what was awaited and the
// page's error line.
async function until(page, what, cond, arg) {
  try {
    await page.waitForFunction(cond, arg, { timeout: 10000 });
  } catch (e) {
    const err = await page.$eval("#error", (e) => e.textContent).catch(() => "");
    fail(`waiting for ${what}: ${e.message.split("\n")[0]}; page error: ${err}`);
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(PLATFORM_URL + "/");
  await page.waitForSelector("#login:not([hidden])", { timeout: 10000 });
  // Before sign-in the navigation (workspaces, Sign out) is not shown.
  if (await page.isVisible("#nav")) fail("the navigation shows before sign-in");
  await page.setViewportSize({ width: 390, height: 844 });
  const wideLogin = await overflowing(page);
  if (wideLogin.length) fail("sign-in wider than 390 px: " + wideLogin.join("; "));
  await page.screenshot({ path: SHOTS + "/platform-signin-390.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.fill("#token", "vxc_" + "x".repeat(43));
  await page.click("#login-form button");
  await until(page, "the refusal of a bad token", () => document.querySelector("#login-error").textContent.includes("unknown"));

  await page.fill("#token", ADMIN_TOKEN);
  await page.click("#login-form button");
  await page.waitForSelector("#overview:not([hidden])", { timeout: 10000 });
  const cookies = await page.context().cookies();
  const c = cookies.find((c) => c.name === "vx_session");
  if (!c || !c.httpOnly || c.sameSite !== "Strict") fail("session cookie missing or not HttpOnly+SameSite=Strict: " + JSON.stringify(cookies));
  if (c.value.includes(ADMIN_TOKEN) || c.value.startsWith("vxc_")) fail("the cookie carries the token");
  if (await page.evaluate(() => document.cookie.includes("vx_session"))) fail("the session cookie is readable from script");
  if (await page.evaluate((t) => JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.body.innerHTML, ADMIN_TOKEN).then((s) => s.includes(ADMIN_TOKEN))) fail("the token is kept in the page");

  await until(page, "3 runs", () => document.querySelectorAll("#runs tbody tr").length === 3);
  const ws = await page.$$eval("#workspaces tbody tr td:first-child", (els) => els.map((e) => e.textContent));
  if (ws.join(",") !== "web,api") fail("workspaces: " + ws);
  await until(page, "the latest run's task", () => document.querySelectorAll("#tasks tbody tr").length === 1);
  // The latest run failed: why, not only "exited with code 1".
  await until(page, "why app#test failed", () => document.querySelector("#run-failures .failure"));
  const why = await page.$eval("#run-failures .failure", (e) => ({ task: e.dataset.task, text: e.innerText, pre: e.querySelector("pre")?.innerText || "", h: e.getBoundingClientRect().height }));
  if (why.task !== "app#test" || !why.h) fail("failure shown: " + JSON.stringify(why));
  if (!why.text.includes("apps/app/src/x.ts:3:7") || !why.pre.includes("error TS2322") || !why.pre.includes("key ***")) fail("failure text: " + JSON.stringify(why));
  // At a phone's width: nothing wider than the screen, labels readable.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300); // the charts redraw on resize
  const wide = await overflowing(page);
  if (wide.length) fail("wider than 390 px: " + wide.join("; "));
  const small = await smallLabels(page);
  if (small.length) fail("chart labels under 11 px: " + small.join("; "));
  await page.screenshot({ path: SHOTS + "/platform-failed-run-390.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  const flaky = await page.$$eval("#flaky tbody tr td:first-child", (els) => els.map((e) => e.textContent));
  if (flaky.join(",") !== "app#test") fail("flaky tasks: " + flaky);
  const bars = await page.$$eval("#trends rect", (els) => els.length);
  // Hourly: a1 (run, local hit), a2 (run, failed, remote hit), a3 (run, failed).
  if (bars !== 7) fail("trends chart has " + bars + " bars, want 7");
  const labels = await page.$$eval("#trends text", (els) => els.map((e) => e.textContent));
  const xLabels = labels.filter((l) => /h$/.test(l));
  if (new Set(xLabels).size !== xLabels.length || xLabels.length < 2) fail("x axis labels repeat or are missing: " + labels);
  const cache = await page.$eval("#cache", (e) => e.textContent);
  if (!cache.includes("remote hits")) fail("cache card: " + cache);
  // A click on the oldest run shows its tasks.
  await page.click("#runs tbody tr:last-child");
  await until(page, "run a1's tasks", () => document.querySelector("#run-id").textContent === "a1a1a1a1a1a1" && document.querySelectorAll("#tasks tbody tr").length === 3);
  const lanes = await page.$$eval("#run-timeline .bar", (els) => els.map((e) => e.dataset.task + ":" + e.dataset.status));
  if (lanes.join(",") !== "lib#build:passed,app#build:passed,app#test:passed") fail("timeline of a1: " + lanes);
  if ((await page.$$("#run-timeline .lane")).length !== 1) fail("a1's tasks ran one after the other: one lane");
  await page.screenshot({ path: SHOTS + "/platform-overview.png", fullPage: true });

  // Admin → Tokens.
  await page.click("#nav-tokens");
  await page.waitForSelector("#tokens:not([hidden])");
  await page.selectOption("#new-scope", "ingest");
  await page.fill("#new-name", "from-ui");
  await page.click("#token-form button");
  await until(page, "the new token", () => document.querySelector("#new-secret code"));
  const secret = await page.$eval("#new-secret code", (e) => e.textContent);
  if (!/^vxc_[0-9A-Za-z]{43}$/.test(secret)) fail("new token: " + secret);
  const pushWith = async () => (await fetch(PLATFORM_URL + "/v1/runs", { method: "POST", headers: { Authorization: "Bearer " + secret, "Content-Type": "application/json" }, body: "{}" })).status;
  if ((await pushWith()) !== 400) fail("the new ingest token is not accepted");
  const row = page.locator("#token-list tbody tr", { hasText: "from-ui" });
  await row.locator("button").click();
  await until(page, "the token revoked", () => [...document.querySelectorAll("#token-list tbody tr")].some((tr) => tr.textContent.includes("from-ui") && tr.querySelector("button").disabled));
  if ((await pushWith()) !== 401) fail("the revoked token still works");
  await page.screenshot({ path: SHOTS + "/platform-tokens.png", fullPage: true });

  // Sign out: the session is gone on the server, not only in the browser.
  await page.click("#logout");
  await page.waitForSelector("#login:not([hidden])");
  const after = await fetch(PLATFORM_URL + "/v1/session", { headers: { Cookie: "vx_session=" + c.value } });
  if (after.status !== 401) fail("the session still works after sign-out: " + after.status);
  console.log(JSON.stringify({ ok: true, bars }));
} finally {
  await browser.close();
}
