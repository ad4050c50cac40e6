// Drives vxd's status page in headless Chromium: log in with the token,
// watch a run appear and finish, save a screenshot. Arguments come from the
// Go test through the environment.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";

const { VXD_URL, VXD_TOKEN, VX_BIN, WORKSPACE, SCREENSHOT } = process.env;
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => fail("page error: " + e.message));

  // Without token or cookie: 401.
  const anon = await page.goto(VXD_URL + "/");
  if (anon.status() !== 401) fail(`page without token answered ${anon.status()}, want 401`);

  // With ?token=: the cookie is set and we land on the clean address.
  await page.goto(`${VXD_URL}/?token=${VXD_TOKEN}`);
  if (page.url() !== VXD_URL + "/") fail(`after login the address is ${page.url()}, want ${VXD_URL}/`);
  const cookies = await page.context().cookies();
  // The login cookie is named for this daemon's port (cookies ignore ports).
  const cookieName = "vxd_page_" + new URL(VXD_URL).port;
  const c = cookies.find((c) => c.name === cookieName);
  if (!c || !c.httpOnly || c.sameSite !== "Strict") fail("login cookie missing or not HttpOnly+SameSite=Strict: " + JSON.stringify(cookies));
  if (c.value === VXD_TOKEN) fail("the login cookie holds the bearer token");
  if (await page.evaluate((n) => document.cookie.includes(n), cookieName)) fail("the login cookie is readable from script");

  await page.waitForSelector("body[data-live='1']", { timeout: 10000 });

  // Before any live run the card shows the latest recorded run from
  // history (made while no daemon was up), not "No run yet".
  await page.waitForSelector("#timeline[data-state='history'] .bar", { timeout: 10000 });
  const recorded = await page.$$eval("#timeline .bar", (els) => els.map((e) => e.dataset.status));
  if (recorded.length < 4 || recorded.some((s) => s !== "passed")) fail("history timeline: " + JSON.stringify(recorded));
  if ((await page.textContent("#timeline")).includes("No run yet")) fail("the card says No run yet above a recorded run");

  // Start a run from a shell; the page must show it live and then finished.
  const run = spawn(VX_BIN, ["run", "build", "test", "--force"], { cwd: WORKSPACE, stdio: "ignore" });
  const exited = new Promise((res) => run.on("exit", res));
  await page.waitForSelector("#timeline .bar", { timeout: 15000 });
  await page.waitForSelector("#timeline[data-state='finished']", { timeout: 30000 });
  const exit = await exited;
  if (exit !== 0) fail("vx run exited " + exit);
  const bars = await page.$$eval("#timeline .bar", (els) => els.map((e) => [e.dataset.task, e.dataset.status]));
  if (bars.length < 4) fail("timeline shows " + bars.length + " tasks: " + JSON.stringify(bars));
  if (bars.some(([, s]) => s !== "passed")) fail("not every bar passed: " + JSON.stringify(bars));
  if ((await page.$$("#timeline .bar.critical")).length === 0) fail("no critical path marked");
  await page.waitForFunction(() => document.querySelectorAll("#runs tbody tr td").length > 1, null, { timeout: 10000 });
  await page.waitForFunction(() => document.querySelector("#durations svg") !== null, null, { timeout: 10000 });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  console.log(JSON.stringify({ ok: true, bars: bars.length }));
} finally {
  await browser.close();
}
