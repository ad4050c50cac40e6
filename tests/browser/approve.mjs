// Approves a plan on vxd's status page in headless Chromium: a login made
// with the token sees the plan waiting but has no Approve button; the
// login `vx approve --page` prints has one, and clicking it approves.
// Arguments come from the Go test through the environment.
import { chromium } from "playwright-core";

const { VXD_URL, VXD_TOKEN, PAGE_LOGIN, PLAN_ID, SCREENSHOT } = process.env;
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const reader = await browser.newContext();
  const page = await reader.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => fail("page error: " + e.message));
  page.on("dialog", (d) => fail("dialog: " + d.message()));
  await page.goto(`${VXD_URL}/?token=${VXD_TOKEN}`);
  await page.waitForSelector("#approvals:not([hidden])", { timeout: 15000 });
  const text = await page.textContent("#pending");
  if (!text.includes(PLAN_ID)) fail("the token login does not list the plan: " + text);
  if (!text.includes("vx approve --page")) fail("the token login is not told how to approve: " + text);
  if ((await page.$$("#pending button")).length !== 0) fail("a login made with the token has an Approve button");
  await reader.close();

  const approver = await browser.newContext();
  const p2 = await approver.newPage({ viewport: { width: 1280, height: 900 } });
  p2.on("pageerror", (e) => fail("page error: " + e.message));
  p2.on("dialog", (d) => fail("dialog: " + d.message()));
  await p2.goto(PAGE_LOGIN);
  if (p2.url() !== VXD_URL + "/") fail(`after the approver login the address is ${p2.url()}, want ${VXD_URL}/`);
  const button = await p2.waitForSelector(`#pending button[data-plan="${PLAN_ID}"]`, { timeout: 15000 });
  await p2.screenshot({ path: SCREENSHOT, fullPage: true });
  await button.click();
  await p2.waitForSelector("#approvals[hidden]", { state: "attached", timeout: 15000 });
  console.log(JSON.stringify({ ok: true }));
} finally {
  await browser.close();
}
