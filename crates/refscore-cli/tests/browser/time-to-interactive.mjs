// Time until a report's row table is interactive in headless Chromium:
// node time-to-interactive.mjs REPORT.html [RUNS]
// Prints, per run, milliseconds from navigation start until the page's
// script has rendered the first page of rows (data-ready-ms), the wall
// time of page.goto until then, and how long filtering to failed rows takes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const report = resolve(process.argv[2] || "report.html");
const runs = Number(process.argv[3] || 3);
const profile = mkdtempSync(join(tmpdir(), "refscore-tti-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"],
});
const results = [];
for (let i = 0; i < runs; i++) {
  const page = await browser.newPage();
  const t0 = Date.now();
  await page.goto(pathToFileURL(report).href, { timeout: 120000 });
  await page.waitForSelector("body[data-ready=true]", { timeout: 120000 });
  const wall = Date.now() - t0;
  const ready = Number(await page.getAttribute("body", "data-ready-ms"));
  const f0 = Date.now();
  await page.selectOption("#f-status", "failed");
  await page.waitForFunction(() => !/^(\d+) of \1 /.test(document.querySelector("#count").textContent));
  const filter = Date.now() - f0;
  const count = await page.textContent("#count");
  results.push({ ready_ms: ready, goto_wall_ms: wall, filter_ms: filter, count });
  await page.close();
}
await browser.close();
rmSync(profile, { recursive: true, force: true });
console.log(JSON.stringify(results));
