// Drives vxd's status page at 390 px through a run with a failing task
// (TestStatusPageSaysWhy): the page without a login says how to log in,
// the link vxd open prints logs in, a page opened mid-run knows the run,
// headings, labels and widths, and why the task failed (masked).
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { overflowing, smallLabels } from "./narrow.mjs";

const { VXD_URL, LOGIN_LINK, VX_BIN, WORKSPACE, SHOTS, SECRET } = process.env;
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const phone = { viewport: { width: 390, height: 844 } };
try {
  const ctx = await browser.newContext(phone);
  const page = await ctx.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));

  // Without a login: a 401 that says how to open the page.
  const anon = await page.goto(VXD_URL + "/");
  if (anon.status() !== 401) fail(`page without a login answered ${anon.status()}, want 401`);
  const help = await page.textContent("body");
  if (!help.includes("vxd open")) fail("the page without a login does not say how to open it: " + help.slice(0, 200));
  await page.screenshot({ path: SHOTS + "/vxd-login-help-390.png", fullPage: true });

  // The link vxd open printed logs in.
  await page.goto(LOGIN_LINK);
  await page.waitForSelector("body[data-live='1']", { timeout: 10000 });

  const run = spawn(VX_BIN, ["run", "build", "test", "--continue"], { cwd: WORKSPACE, stdio: "ignore", env: { ...process.env, API_KEY: SECRET } });
  const exited = new Promise((res) => run.on("exit", res));
  // Mid-run, once some tasks finished, a second page opens.
  await page.waitForFunction(() => document.querySelectorAll("#timeline .bar.passed").length >= 4, null, { timeout: 30000 });
  const doneBefore = await page.$$eval("#timeline .bar.passed", (els) => els.length);
  const late = await ctx.newPage();
  late.on("pageerror", (e) => fail("page error: " + e.message));
  await late.goto(VXD_URL + "/");
  await late.waitForSelector("body[data-live='1']", { timeout: 10000 });
  // The replay arrives as one message an event: wait until the page has
  // drawn the tasks that had finished (or the run ended), not only the
  // run's start, before reading it.
  await late.waitForFunction((n) => (/running/.test(document.querySelector("#state").textContent) && document.querySelectorAll("#timeline .bar").length >= n)
    || document.querySelector("#timeline[data-state='finished']"), doneBefore, { timeout: 10000 }).catch(() => {});
  const lateState = await late.textContent("#state");
  const lateBars = await late.$$eval("#timeline .bar", (els) => els.length);
  if (lateState.includes("?") || (/running/.test(lateState) && !/of 24 tasks/.test(lateState))) fail("a page opened mid-run says " + JSON.stringify(lateState) + ", want the run's 24 tasks");
  if (lateBars < doneBefore) fail(`a page opened mid-run draws ${lateBars} tasks, ${doneBefore} had finished`);
  await late.screenshot({ path: SHOTS + "/vxd-midrun-390.png", fullPage: true });

  const code = await exited;
  if (code === 0) fail("vx run passed; p07#test should fail");
  for (const p of [page, late]) {
    await p.waitForSelector("#timeline[data-state='finished']", { timeout: 30000 });
    await p.waitForFunction(() => document.querySelector("#state").textContent === "idle", null, { timeout: 10000 });
    const foot = await p.textContent("#runFoot");
    if (!/^failed in \S+: 1 of 24 tasks failed, 0 cached$/.test(foot)) fail("run foot: " + foot);
  }
  await page.waitForSelector("#failures .failure", { timeout: 10000 });

  // Headings read as written: the run's command is not shouted.
  const heading = await page.$eval("#runTitle", (e) => e.closest("h2").innerText);
  if (heading.includes("LATEST:") || heading.includes("VX RUN") || !heading.startsWith("LATEST RUN")) fail("run heading reads " + JSON.stringify(heading));

  // Why it failed: the location, relative, and the excerpt, masked.
  const f = await page.$eval("#failures .failure", (e) => ({ task: e.dataset.task, text: e.innerText, pre: e.querySelector("pre")?.innerText || "", visible: e.getBoundingClientRect().height > 0 }));
  if (f.task !== "p07#test" || !f.visible) fail("failure shown: " + JSON.stringify(f));
  if (!f.text.includes("packages/p07/src/index.ts:3:7")) fail("no file:line for the failure: " + f.text);
  if (!f.pre.includes("error TS2322")) fail("no excerpt of the output: " + f.pre);
  if (!f.pre.includes("key ***")) fail("the excerpt does not show the secret masked: " + f.pre);
  if ((await page.content()).includes(SECRET)) fail("the page holds the secret in clear");

  const wide = await overflowing(page);
  if (wide.length) fail("wider than 390 px: " + wide.join("; "));
  const small = await smallLabels(page);
  if (small.length) fail("chart labels under 11 px: " + small.join("; "));
  await page.screenshot({ path: SHOTS + "/vxd-failed-run-390.png", fullPage: true });
  console.log(JSON.stringify({ ok: true, lateState, lateBars, doneBefore }));
} finally {
  await browser.close();
}
