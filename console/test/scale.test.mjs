// What the console costs and how fast it answers at a realistic size: the bytes of a first load
// (a fresh browser, nothing cached; the budget is 300 KB), and a search over a user with
// 10,000 memories, from the click to the hits drawn on screen. Prints the figures and writes
// them to console-metrics.json beside the screenshots.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EngramServer } from "../../clients/typescript/test/support/engram-server.mjs";
import { artifactsDir, launch, openConsole, problemsOf } from "./support/browser.mjs";
import { api } from "./support/seed.mjs";

const dist = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const MEMORIES = 10_000;
const BATCH = 1000;
const FIRST_LOAD_BUDGET = 300 * 1024;

const metrics = {};
let server;
let browser;

/** Memory number i: varied English and Chinese sentences, dated across 2026. */
function memoryText(i) {
  const en = ["met", "called", "emailed", "visited", "planned a trip with", "had lunch with", "reviewed the budget with", "played tennis with"];
  const who = ["Kevin", "Mia", "the design team", "Dr. Chen", "her sister", "the landlord", "Priya", "the running club"];
  const zh = ["喜欢", "讨厌", "正在学习", "打算尝试", "经常去", "想念", "推荐了", "买了"];
  const what = ["四川火锅", "爵士乐", "瑜伽", "日本料理", "围棋", "咖啡馆", "登山鞋", "古典小说"];
  const n = i * 7919;
  return i % 2 === 0
    ? `On day ${i % 365} she ${en[n % 8]} ${who[(n >> 3) % 8]} about project ${i % 97}`
    : `用户${zh[n % 8]}${what[(n >> 3) % 8]}（第${i % 89}条记录）`;
}

function createdAt(i) {
  const t = Date.UTC(2026, 0, 1) + Math.floor((i / MEMORIES) * 330 * 86_400_000);
  return new Date(t).toISOString();
}

/** Milliseconds from a click to what `selector` names being drawn and painted, in the page. */
async function clickToDrawn(page, click, selector) {
  return page.evaluate(async ([click, selector]) => {
    document.querySelectorAll(selector).forEach((el) => el.remove()); // the old results do not count
    const start = performance.now();
    document.querySelector(click).click();
    await new Promise((resolve) => {
      const poll = () => (document.querySelector(selector) ? resolve() : requestAnimationFrame(poll));
      poll();
    });
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))); // painted
    return performance.now() - start;
  }, [click, selector]);
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe("console at 10,000 memories", () => {
  before(async () => {
    server = await new EngramServer(["--console-dir", dist, "--maintain-interval", "0"]).start();
    const started = Date.now();
    for (let from = 0; from < MEMORIES; from += BATCH) {
      const memories = [];
      for (let i = from; i < from + BATCH; i++) {
        memories.push({ content: memoryText(i), type: i % 3 === 0 ? "event" : "fact", created_at: createdAt(i), importance: 0.3 + (i % 7) / 10 });
      }
      await api(server.url, "POST", "/v1/memories/batch", { user_id: "bulk", infer: false, memories });
    }
    metrics.seed_ms = Date.now() - started;
    browser = await launch();
  });

  after(async () => {
    writeFileSync(join(artifactsDir(), "console-metrics.json"), `${JSON.stringify(metrics, null, 2)}\n`);
    console.log(`console metrics: ${JSON.stringify(metrics)}`);
    await browser?.close();
    await server?.stop();
  });

  it(`loads in at most ${FIRST_LOAD_BUDGET / 1024} KB, nothing cached`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const urls = new Map();
    let assets = 0;
    let total = 0;
    cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
    cdp.on("Network.loadingFinished", (e) => {
      const path = new URL(urls.get(e.requestId) ?? server.url).pathname;
      total += e.encodedDataLength;
      if (!path.startsWith("/v1/")) assets += e.encodedDataLength;
    });
    await page.goto(`${server.url}/#/memories`);
    await page.locator("[data-test=timeline-wrap][data-state=ready]").waitFor({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    metrics.first_load_assets_bytes = assets;
    metrics.first_load_total_bytes = total; // with the API's answers: the users and 50 memories
    metrics.first_load_requests = urls.size;
    assert.ok(assets <= FIRST_LOAD_BUDGET, `the console's files took ${assets} bytes`);
    assert.ok(total <= FIRST_LOAD_BUDGET, `the first load took ${total} bytes`);
    await context.close();
  });

  it("answers and draws a search over 10,000 memories", async () => {
    const { context, page, problems } = await openConsole(browser, server.url, { hash: "#/search" });
    await page.locator("[data-test=user-select] option[value=bulk]").waitFor({ state: "attached" });
    const times = [];
    const server_ = [];
    for (const query of ["tennis with Priya", "四川火锅", "budget project 42", "登山鞋", "lunch with Kevin"]) {
      await page.fill("[data-test=search-input]", query);
      times.push(await clickToDrawn(page, "[data-test=search-go]", "[data-test=hit]"));
      await page.locator("[data-test=search-timing]").waitFor();
      server_.push(Number(/(\d+) ms/.exec(await page.locator("[data-test=search-timing]").textContent())[1]));
      assert.equal(await page.locator("[data-test=hit]").count(), 10);
    }
    metrics.search_drawn_ms = { median: Math.round(median(times)), max: Math.round(Math.max(...times)), runs: times.map(Math.round) };
    metrics.search_answered_ms_median = median(server_);
    assert.ok(median(times) < 2000, `search drawn in ${median(times)} ms`);

    await page.goto(`${server.url}/#/memories`);
    await page.locator("[data-test=timeline-wrap][data-state=ready]").waitFor();
    const pages = [];
    for (let shown = 50; shown < 200; shown += 50) {
      const started = Date.now();
      await page.click("[data-test=load-more]");
      await page.waitForFunction((n) => document.querySelectorAll("[data-test=memory-content]").length >= n, shown + 50);
      pages.push(Date.now() - started);
    }
    metrics.timeline_next_page_ms_median = median(pages);
    assert.equal(await page.locator("[data-test=memory-content]").count(), 200, "pages of 50 follow the cursor");
    assert.deepEqual(await problemsOf(page, problems), []);
    await context.close();
  });
});
