// Opens the HTML report of the shipped example in headless Chromium and
// checks what a person does with it: read the header and the gate, filter
// the rows, expand a failed row and find its failing path highlighted.
// Screenshots go into the report's folder.
//
// REFSCORE_REPORT_DIR: the output folder of `refscore run ... --report html`;
// REFSCORE_HOSTILE_DIR (optional): that of a run over hostile data (see
// run.sh), whose report.html and junit.xml are checked too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const dir = resolve(process.env.REFSCORE_REPORT_DIR || "");
const report = join(dir, "report.html");
const hostile = process.env.REFSCORE_HOSTILE_DIR ? resolve(process.env.REFSCORE_HOSTILE_DIR) : null;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
let browser, profile;

before(async () => {
  assert.ok(existsSync(report), `no report at ${report}: set REFSCORE_REPORT_DIR`);
  profile = mkdtempSync(join(tmpdir(), "refscore-chromium-"));
  // A fresh profile (--user-data-dir) for every run.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--no-first-run", "--disable-sync",
      "--disable-quic",
    ],
  });
});

after(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function open(options = {}, file = report) {
  const page = await browser.newPage();
  await page.emulateMedia({ colorScheme: options.colorScheme || "light" });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("request", (r) => { if (!r.url().startsWith("file:")) problems.push(`network: ${r.url()}`); });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 10000 });
  return { page, problems };
}

test("header, gate and evaluator cards", async () => {
  const { page, problems } = await open();
  assert.equal(await page.textContent("h1"), "invoice-extraction");
  assert.match(await page.textContent(".facts"), /66 rows/);
  assert.match(await page.textContent(".facts"), /dataset \/\S*examples\/invoices\/dataset\.jsonl/);
  assert.match(await page.textContent("#baseline h2"), /Against the baseline\s+clean/);
  assert.equal(await page.locator(".card .badge.clean").count(), 4);
  const gate = page.locator("#gate");
  assert.match(await gate.textContent(), /Gate passed/);
  assert.match(await gate.getAttribute("class"), /\bpass\b/);
  assert.equal(await page.locator(".card").count(), 4);
  assert.equal(await page.locator(".card svg.hist rect").count(), 80);
  assert.equal(await page.locator("#rows tbody tr.row").count(), 66);
  assert.equal(await page.textContent("#count"), "66 of 66 rows");
  await page.screenshot({ path: join(dir, "screenshot-overview.png"), fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("filters by status, evaluator and text", async () => {
  const { page, problems } = await open();
  await page.selectOption("#f-status", "failed");
  const failed = Number((await page.textContent("#count")).split(" ")[0]);
  assert.ok(failed > 0 && failed < 66, `failed rows: ${failed}`);
  const statuses = await page.locator("#rows tbody tr.row").evaluateAll((rows) => rows.map((r) => r.dataset.status));
  assert.ok(statuses.every((s) => s !== "passed"), statuses.join(","));

  await page.selectOption("#f-evaluator", "fields");
  const forFields = Number((await page.textContent("#count")).split(" ")[0]);
  assert.ok(forFields > 0 && forFields < failed, `fields failures: ${forFields} of ${failed}`);

  await page.selectOption("#f-evaluator", "");
  await page.selectOption("#f-status", "");
  await page.fill("#f-text", "inv-004");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("1 of"));
  assert.equal(await page.locator("#rows tbody tr.row").count(), 1);

  // A failing path finds the rows that fail on it.
  await page.fill("#f-text", "$.line_items[0].sku");
  await page.waitForFunction(() => !document.querySelector("#count").textContent.startsWith("1 of"));
  assert.ok(await page.locator("#rows tbody tr.row").count() >= 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a failed row expands into its checks and highlighted paths", async () => {
  const { page, problems } = await open();
  await page.fill("#f-text", "inv-004");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("1 of"));
  await page.click("#rows tbody tr.row");
  const expanded = page.locator("#rows tbody tr.open");
  await expanded.waitFor();
  assert.match(await expanded.textContent(), /\$\.total/);
  assert.match(await expanded.textContent(), /Type mismatch/);
  const hl = expanded.locator('.sides .hl[data-path="$.total"]');
  assert.equal(await hl.count(), 2, "highlighted in output and reference");
  assert.match(await hl.first().textContent(), /3,874\.68/);
  await expanded.screenshot({ path: join(dir, "screenshot-row.png") });
  // The row table with the row open, as a reader sees it.
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.locator("#filters").scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollTo(0, document.querySelector("#filters").getBoundingClientRect().top + window.scrollY - 60));
  await page.screenshot({ path: join(dir, "screenshot-rows.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the field table sorts and the dark theme follows the system", async () => {
  const { page, problems } = await open({ colorScheme: "dark" });
  const header = page.locator("#fields th", { hasText: "Accuracy" });
  await header.click();
  const values = await page.locator("#fields tbody tr td:nth-child(3)").evaluateAll((cells) => cells.map((c) => Number(c.dataset.v)));
  assert.deepEqual(values, [...values].sort((a, b) => a - b));
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, "rgb(20, 23, 29)");
  await page.fill("#f-text", "inv-007");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("1 of"));
  await page.click("#rows tbody tr.row");
  await page.screenshot({ path: join(dir, "screenshot-dark.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("rows expand and columns sort by keyboard, with a visible focus", async () => {
  const { page, problems } = await open();
  await page.fill("#f-text", "inv-004");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("1 of"));
  // Tab from the search box reaches the row's button; Enter opens the row.
  await page.focus("#f-text");
  await page.keyboard.press("Tab");
  const focused = () => page.evaluate(() => {
    const a = document.activeElement;
    return { tag: a.tagName, expanded: a.getAttribute("aria-expanded"), outline: getComputedStyle(a).outlineStyle };
  });
  assert.deepEqual(await focused(), { tag: "BUTTON", expanded: "false", outline: "solid" });
  await page.keyboard.press("Enter");
  await page.locator("#rows tbody tr.open").waitFor();
  assert.equal((await focused()).expanded, "true", "focus stays on the row's button");
  await page.keyboard.press("Space");
  assert.equal(await page.locator("#rows tbody tr.open").count(), 0);
  assert.equal((await focused()).expanded, "false");

  // Every heading of the field table is a button that sorts by keyboard.
  assert.equal(await page.locator("#fields th button").count(), await page.locator("#fields th").count());
  const header = page.locator("#fields th", { hasText: "Accuracy" });
  await header.locator("button").focus();
  await page.keyboard.press("Enter");
  assert.equal(await header.getAttribute("aria-sort"), "ascending");
  const values = await page.locator("#fields tbody tr td:nth-child(3)").evaluateAll((cells) => cells.map((c) => Number(c.dataset.v)));
  assert.deepEqual(values, [...values].sort((a, b) => a - b));
  await page.keyboard.press("Enter");
  assert.equal(await header.getAttribute("aria-sort"), "descending");
  assert.deepEqual(problems, []);
  await page.close();
});

// Characters that would not show as themselves (see report.js).
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufffe\uffff]/;

test("hostile data: long ids stay in the viewport, hidden characters show as escapes", { skip: !hostile }, async () => {
  const { page, problems } = await open({}, join(hostile, "report.html"));
  assert.equal(await page.locator("#rows tbody tr.row").count(), 4);
  // The 5,000-character id is cut: the table, and each row's status, fit.
  const fit = await page.evaluate(() => ({
    width: window.innerWidth,
    page: document.documentElement.scrollWidth,
    table: document.querySelector("#rows").getBoundingClientRect().right,
    status: Math.max(...[...document.querySelectorAll("#rows tbody tr.row td:nth-child(4)")].map((td) => td.getBoundingClientRect().right)),
  }));
  assert.ok(fit.page <= fit.width && fit.table <= fit.width && fit.status <= fit.width, JSON.stringify(fit));
  for (const row of await page.locator("#rows tbody tr.row button").all()) await row.click();
  assert.equal(await page.locator("#rows tbody tr.open").count(), 4);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "opened rows fit");
  // Every text node (innerText would add tabs between cells).
  const text = await page.evaluate(() => document.body.textContent);
  const raw = text.match(HIDDEN);
  assert.equal(raw, null, `raw ${JSON.stringify(raw && raw[0])}`);
  assert.match(text, /a\\u\{0\}b\\u\{1b\}\[31mRED\\u\{202e\}evil/);
  // The output and reference are JSON as JSON writes it, its escapes
  // JSON's own: copied, it is still JSON.
  const sides = await page.locator(".sides pre").evaluateAll((ps) => ps.map((p) => p.textContent).join("\n"));
  assert.ok(sides.includes('"x\\u0000y\\u202ez\\u2028"'), sides);
  // Titles (the whole id of a cut one) too.
  const titles = await page.locator("[title]").evaluateAll((ns) => ns.map((n) => n.title).join("\n"));
  assert.equal(titles.match(HIDDEN), null);
  await page.screenshot({ path: join(dir, "screenshot-hostile.png"), fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("hostile data: the text filter finds a row by its evaluation's error and its checks' reasons", { skip: !hostile }, async () => {
  const { page, problems } = await open({}, join(hostile, "report.html"));
  // The row without a reference failed its evaluation: its error is what
  // the opened row shows, and what the filter looks in.
  await page.fill("#f-text", "no column `reference`");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("1 of"));
  await page.click("#rows tbody tr.row");
  assert.match(await page.locator("#rows tbody tr.open").textContent(), /Evaluation failed: .*no column `reference`/);
  // A failed check's reason finds the rows that failed that way.
  await page.fill("#f-text", "value mismatch");
  await page.waitForFunction(() => document.querySelector("#count").textContent.startsWith("3 of"));
  assert.deepEqual(problems, []);
  await page.close();
});

test("hostile data: an XML parser reads junit.xml's names back as written", { skip: !hostile }, async () => {
  const { page } = await open({}, join(hostile, "report.html"));
  const xml = readFileSync(join(hostile, "junit.xml"), "utf8");
  const read = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, "application/xml");
    if (doc.querySelector("parsererror")) return { error: doc.querySelector("parsererror").textContent };
    return {
      suites: [...doc.querySelectorAll("testsuite")].map((s) => [s.getAttribute("name"), s.getAttribute("failures")]),
      names: [...doc.querySelectorAll("testsuite[name=f] testcase")].map((c) => c.getAttribute("name")),
      failures: [...doc.querySelectorAll("testsuite[name=f] failure")].map((f) => f.textContent),
    };
  }, xml);
  // The row without a reference failed its evaluation (an error), which
  // fails the gate's max_failed_rows.
  assert.deepEqual(read.suites, [["gate", "1"], ["f", "3"]]);
  assert.ok(read.names.includes("tab\there\rcr"), JSON.stringify(read.names.slice(1)));
  assert.ok(read.names.includes("a\\u{0}b\\u{1b}[31mRED\\u{202e}evil"), JSON.stringify(read.names.slice(1)));
  assert.ok(read.failures.some((f) => f.includes("got t\tu")), JSON.stringify(read.failures));
  await page.close();
});
