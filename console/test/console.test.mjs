// The console end to end, in headless Chromium against a real keyless engram serve (the console
// from console/dist, read from disk with --console-dir): load, pick a user, the timeline, search
// with its explain bars, a memory's history and supersede chain, edit, delete and purge (each
// asked first), export, the LLM context, the profile and maintenance, recall, the chat page
// (its streaming drawn from a stubbed route), both languages, and memories holding markup drawn
// as text. Screenshots (desktop and phone, English and Chinese) go to the artifacts folder.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EngramServer } from "../../clients/typescript/test/support/engram-server.mjs";
import { artifactsDir, launch, openConsole, PHONE, problemsOf } from "./support/browser.mjs";
import { api, seedAlice, seedWang, XSS_IMG, XSS_SCRIPT } from "./support/seed.mjs";

const dist = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const shots = artifactsDir();

let server;
let browser;
let page;
let problems;
let context;

const ready = () => page.locator("[data-test=timeline-wrap][data-state=ready]").waitFor();
const memory = (text) => page.locator("[data-test=memory-content]", { hasText: text }).first();
const panel = () => page.locator("[data-test=memory-panel]");

async function openTimelineItem(text) {
  await page.goto(`${server.url}/#/memories`);
  await memory(text).click();
  await panel().locator("[data-test=panel-content]", { hasText: text }).waitFor();
}

async function closePanel() {
  await panel().locator("[data-test=panel-close]").click();
  await panel().waitFor({ state: "detached" });
}

async function memoryByContent(user, text) {
  const page_ = await api(server.url, "GET", `/v1/memories?user_id=${user}&status=all&limit=100`);
  return page_.results.find((m) => m.content === text);
}

describe("console", () => {
  before(async () => {
    server = await new EngramServer(["--console-dir", dist, "--maintain-interval", "0"]).start();
    await seedWang(server.url);
    await seedAlice(server.url);
    browser = await launch();
    ({ context, page, problems } = await openConsole(browser, server.url, { hash: "#/memories" }));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("loads from /console/ files and lists the users of the tenant", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    assert.match(html, /src="\/console\/app\.js"/);
    assert.match(html, /href="\/console\/app\.css"/);
    const users = page.locator("[data-test=user-select] option");
    await page.locator("[data-test=user-select] option[value=wang]").waitFor({ state: "attached" });
    const values = await users.evaluateAll((opts) => opts.map((o) => o.value).filter(Boolean));
    assert.deepEqual(values.sort(), ["alice", "wang"]);
  });

  it("shows the picked user's memories on a timeline, grouped by day", async () => {
    await page.selectOption("[data-test=user-select]", "wang");
    await memory("我喜欢喝绿茶").waitFor();
    const days = await page.locator(".day-head").allTextContents();
    assert.ok(days.includes("2026-04-18"), `days: ${days}`);
    assert.ok(days.indexOf("2026-11-20") < days.indexOf("2026-03-02"), "newest first");
    await page.selectOption("[data-test=filter-type]", "preference");
    await ready();
    const types = await page.locator("[data-test=timeline] .badge.type").allTextContents();
    assert.ok(types.length >= 2 && types.every((t) => t === "preference"), `types: ${types}`);
    assert.ok((await page.locator("[data-test=memory-content]").allTextContents()).includes("我喜欢喝绿茶"));
    await page.selectOption("[data-test=filter-type]", "");
    await page.selectOption("[data-test=filter-status]", "all");
    await ready();
    await memory("用户住在北京").waitFor(); // superseded: shown with status all
    await page.selectOption("[data-test=filter-status]", "active");
    await ready();
    assert.equal(await memory("用户住在北京").count(), 0);
  });

  it("draws memories holding markup as text: no script runs, no image loads", async () => {
    await memory(XSS_SCRIPT).waitFor();
    await memory(XSS_IMG).waitFor();
    assert.equal(await memory(XSS_SCRIPT).textContent(), XSS_SCRIPT);
    assert.equal(await memory(XSS_IMG).textContent(), XSS_IMG);
    assert.equal(await page.locator("main img, main script").count(), 0);
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    await memory(XSS_IMG).click();
    await panel().locator("[data-test=panel-content]").waitFor();
    assert.equal(await panel().locator("[data-test=panel-content]").textContent(), XSS_IMG);
    assert.equal(await panel().locator("img").count(), 0);
    await closePanel();
  });

  it("searches with explain and draws each signal as a bar", async () => {
    await page.click("[data-test=tab-search]");
    await page.fill("[data-test=search-input]", "绿茶");
    await page.click("[data-test=search-go]");
    const first = page.locator("[data-test=hit]").first();
    await first.waitFor();
    assert.equal(await first.locator("[data-test=memory-content]").textContent(), "我喜欢喝绿茶");
    const keyword = first.locator("[data-signal=keyword] .bar-fill");
    const width = await keyword.evaluate((el) => el.getBoundingClientRect().width);
    assert.ok(width > 0, "the keyword bar has a width");
    const signals = await first.locator("[data-test=explain] .score-row").evaluateAll((rows) => rows.map((r) => r.dataset.signal));
    for (const s of ["score", "relevance", "keyword", "vector", "importance", "recency", "retention"]) {
      assert.ok(signals.includes(s), `${s} in ${signals}`);
    }
    assert.match(await page.locator("[data-test=search-timing]").textContent(), /answered in \d+ ms/);
    await page.screenshot({ path: join(shots, "search-desktop-en.png"), fullPage: true });

    await page.selectOption("[data-test=search-mode]", "fulltext");
    await page.fill("[data-test=search-input]", "seats flights");
    await page.click("[data-test=search-go]");
    await page.locator("[data-test=hit] [data-test=memory-content]", { hasText: "window seats" }).waitFor();
    await page.selectOption("[data-test=search-mode]", "hybrid");
  });

  it("opens a memory's history with its supersede chain (北京 → 上海) and dates", async () => {
    await openTimelineItem("用户2026年6月搬到上海了");
    const chain = panel().locator("[data-test=chain] .chain-node");
    await chain.nth(1).waitFor();
    assert.equal(await chain.count(), 2);
    assert.equal(await chain.nth(0).locator(".chain-content").textContent(), "用户住在北京");
    assert.equal(await chain.nth(0).locator(".chain-dates").textContent(), "2026-03-02 – 2026-06-01");
    assert.equal(await chain.nth(1).locator(".chain-content").textContent(), "用户2026年6月搬到上海了");
    assert.match(await chain.nth(1).locator(".chain-dates").textContent(), /^2026-06-01 – now$/);
    assert.equal(await chain.nth(1).getAttribute("aria-current"), "true");
    await panel().locator("[data-test=history] .history-entry").first().waitFor();
    assert.match(await panel().locator("[data-test=history]").textContent(), /exclusive slot user\/location/);
    await page.screenshot({ path: join(shots, "history-desktop-en.png") });
    // The older version opens from the chain, and its history shows the SUPERSEDE.
    await chain.nth(0).locator("button").click();
    await panel().locator("[data-test=panel-content]", { hasText: "用户住在北京" }).waitFor();
    await panel().locator("[data-test=history] .event-supersede").waitFor();
    await closePanel();
  });

  it("edits a memory (PATCH) and shows the change in its history", async () => {
    await openTimelineItem("Prefers window seats on long flights");
    await panel().locator("[data-test=edit]").click();
    await panel().locator("[data-test=edit-content]").fill("Prefers aisle seats on long flights");
    await panel().locator("[data-test=edit-reason]").fill("changed her mind");
    await panel().locator("[data-test=edit-save]").click();
    await panel().locator("[data-test=panel-content]", { hasText: "Prefers aisle seats on long flights" }).waitFor();
    const update = panel().locator("[data-test=history] .event-update");
    await update.waitFor();
    assert.equal(await update.locator("del").textContent(), "Prefers window seats on long flights");
    assert.equal(await update.locator("ins").textContent(), "Prefers aisle seats on long flights");
    assert.match(await update.textContent(), /changed her mind/);
    await closePanel();
    await memory("Prefers aisle seats on long flights").waitFor();
    assert.ok(await memoryByContent("wang", "Prefers aisle seats on long flights"));
  });

  it("deletes only after the confirmation, and cancelling keeps the memory", async () => {
    const text = "Temporary note to delete: parking spot B12";
    await openTimelineItem(text);
    await panel().locator("[data-test=delete]").click();
    await page.locator("[data-test=confirm-cancel]").click();
    assert.equal((await memoryByContent("wang", text)).status, "active");
    await panel().locator("[data-test=delete]").click();
    const dialog = page.locator("dialog.confirm");
    assert.match(await dialog.textContent(), /parking spot B12/);
    await page.locator("[data-test=confirm-ok]").click();
    await panel().locator(".badge.status-deleted").waitFor();
    assert.equal((await memoryByContent("wang", text)).status, "deleted");
    await closePanel();
    await memory(text).waitFor({ state: "detached" }); // the active timeline no longer has it
  });

  it("purges (hard delete) after the confirmation", async () => {
    const text = "Dentist appointment moved to Friday";
    const id = (await memoryByContent("wang", text)).id;
    await openTimelineItem(text);
    await panel().locator("[data-test=purge]").click();
    await page.locator("[data-test=confirm-ok]").click();
    await panel().waitFor({ state: "detached" });
    await memory(text).waitFor({ state: "detached" });
    await assert.rejects(api(server.url, "GET", `/v1/memories/${id}?user_id=wang`), /404/);
  });

  it("exports the user's memories as a JSON Lines download", async () => {
    await page.goto(`${server.url}/#/memories`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("[data-test=export]")]);
    assert.equal(download.suggestedFilename(), "engram-export-wang.jsonl");
    const text = readFileSync(await download.path(), "utf8");
    assert.match(text.split("\n")[0], /"kind":"engram-export"/);
    assert.match(text, /我喜欢喝绿茶/);
  });

  it("shows what the LLM would see for a query and a token budget", async () => {
    await page.click("[data-test=tab-context]");
    await page.fill("[data-test=context-query]", "我住在哪里？");
    await page.fill("[data-test=context-budget]", "200");
    await page.click("[data-test=context-go]");
    const text = page.locator("[data-test=context-text]");
    await text.waitFor();
    assert.match(await text.textContent(), /上海/);
    assert.match(await page.locator("[data-test=context-tokens]").textContent(), /^\d+ of 200 tokens/);
    await page.screenshot({ path: join(shots, "context-desktop-en.png"), fullPage: true });
  });

  it("shows the profile, retention, and previews then runs maintenance (asked first)", async () => {
    await page.click("[data-test=tab-profile]");
    await page.locator("[data-test=profile]", { hasText: "用户对花生过敏" }).waitFor();
    const rows = page.locator("[data-test=retention-table] tbody tr");
    await rows.first().waitFor();
    assert.match(await page.locator("[data-test=retention-table]").textContent(), /critical/);
    await page.click("[data-test=m-preview]");
    await page.locator("[data-test=maintenance-report]", { hasText: "nothing was changed" }).waitFor();
    await page.click("[data-test=m-run]");
    await page.locator("[data-test=confirm-ok]").click();
    await page.locator("[data-test=maintenance-report]", { hasText: "Done in" }).waitFor();
    await page.screenshot({ path: join(shots, "profile-desktop-en.png"), fullPage: true });
  });

  it("shows what proactive recall would raise, and why", async () => {
    await page.click("[data-test=tab-recall]");
    await page.fill("[data-test=recall-text]", "帮我订周五晚上的泰国餐厅");
    await page.click("[data-test=recall-go]");
    const results = page.locator("[data-test=recall-results]");
    await results.waitFor();
    assert.match(await results.textContent(), /用户对花生过敏/);
    assert.match(await results.textContent(), /food allergy/);
    await page.screenshot({ path: join(shots, "recall-desktop-en.png"), fullPage: true });
  });

  it("draws an entity's neighbourhood from the user's entity graph", async () => {
    await page.selectOption("[data-test=user-select]", "wang");
    await page.click("[data-test=tab-graph]");
    const list = page.locator("[data-test=entity-list]");
    await list.waitFor();
    const names = await list.locator("[data-test=entity]").allTextContents();
    assert.ok(names.includes("上海") && names.includes("北京") && names.includes("wang"), `entities: ${names}`);
    await list.locator("[data-test=entity]", { hasText: "上海" }).click();
    const around = page.locator("[data-test=graph-around]");
    await around.locator("[data-test=graph-drawing]").waitFor();
    // 上海 in the middle, the user one relation away, the line between them labelled.
    const nodes = await around.locator("[data-test=graph-node] .graph-name").allTextContents();
    assert.deepEqual(nodes.sort(), ["wang", "上海"].sort());
    assert.equal(await around.locator("[data-test=graph-edge]").count(), 1);
    assert.match(await around.locator("[data-test=graph-relation]").first().textContent(), /wang —lives_in→ 上海/);
    // The ended relation (moved away from 北京) is drawn dashed once asked for, and struck out.
    await page.check(".graph-page input[type=checkbox]");
    await page.click(".graph-page button[type=submit]");
    await list.locator("[data-test=entity]", { hasText: "wang" }).click();
    // 北京 is also two relations from 上海: wait for wang's own neighbourhood, not 上海's.
    await around.locator("h3", { hasText: "wang" }).waitFor();
    await around.locator("[data-test=graph-node] .graph-name", { hasText: "北京" }).waitFor();
    assert.equal(await around.locator("[data-test=graph-edge].ended").count(), 1);
    assert.equal(await around.locator(".graph-relation.ended").count(), 1);
    await page.screenshot({ path: join(shots, "graph-desktop-en.png"), fullPage: true });
  });

  it("draws a streamed chat reply from the proxy (stubbed route)", async () => {
    let sent;
    await page.route("**/v1/chat/completions", async (route) => {
      sent = JSON.parse(route.request().postData());
      const chunk = (content) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}`;
      const body = [
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant" } }] })}\n\n`,
        `${chunk("你对花生过敏，")}\r\n\r\n`,
        ": a comment line is ignored\n\n",
        `${chunk("所以我选了一家")}\n\n${chunk(" <b>不用花生</b> 的泰国餐厅。")}\n\n`,
        "data: [DONE]\n\n",
      ].join("");
      await route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream" }, body });
    });
    await page.click("[data-test=tab-chat]");
    await page.fill("[data-test=chat-model]", "qwen-plus");
    await page.fill("[data-test=chat-input]", "周五晚饭去哪儿？");
    await page.click("[data-test=chat-send]");
    const reply = page.locator("[data-test=chat-assistant] .said");
    await reply.waitFor();
    await page.locator("[data-test=chat-assistant]:not(.streaming)").waitFor();
    assert.equal(await reply.textContent(), "你对花生过敏，所以我选了一家 <b>不用花生</b> 的泰国餐厅。");
    assert.equal(await page.locator("[data-test=chat-log] b").count(), 0);
    assert.equal(sent.user, "wang");
    assert.equal(sent.stream, true);
    assert.equal(sent.model, "qwen-plus");
    assert.match(sent.engram.session_id, /^console-/);
    assert.deepEqual(sent.messages, [{ role: "user", content: "周五晚饭去哪儿？" }]);
    await page.screenshot({ path: join(shots, "chat-desktop-en.png") });
    await page.unroute("**/v1/chat/completions");
  });

  it("says the chat proxy is not enabled when the route answers 404", async () => {
    await page.route("**/v1/chat/completions", (route) =>
      route.fulfill({ status: 404, contentType: "application/json", body: '{"error":{"message":"the chat proxy is not enabled","type":"invalid_request_error","code":"proxy_not_enabled"}}' }));
    await page.click("[data-test=tab-chat]");
    await page.click("[data-test=chat-new]");
    await page.fill("[data-test=chat-input]", "hello?");
    await page.click("[data-test=chat-send]");
    const notice = page.locator("[data-test=chat-missing]");
    await notice.waitFor();
    assert.match(await notice.textContent(), /--upstream-url/);
    assert.equal(await page.locator("[data-test=chat-input]").inputValue(), "hello?", "the turn is given back");
    await page.unroute("**/v1/chat/completions");
  });

  it("keeps a reply that broke off, and says why", async () => {
    await page.route("**/v1/chat/completions", (route) =>
      route.fulfill({
        status: 200,
        headers: { "Content-Type": "text/event-stream" },
        body: 'data: {"choices":[{"delta":{"content":"Half a rep"}}]}\n\ndata: {"error":{"message":"upstream went away","code":"stream_interrupted"}}\n\n',
      }));
    await page.click("[data-test=chat-new]");
    await page.fill("[data-test=chat-input]", "tell me more");
    await page.click("[data-test=chat-send]");
    await page.locator("[data-test=chat-assistant].interrupted").waitFor();
    assert.equal(await page.locator("[data-test=chat-assistant] .said").textContent(), "Half a rep");
    assert.match(await page.locator(".chat-page .error").textContent(), /upstream went away/);
    await page.unroute("**/v1/chat/completions");
  });

  it("switches between English and Chinese, and keeps the choice", async () => {
    await page.goto(`${server.url}/#/memories`);
    await memory("我喜欢喝绿茶").waitFor();
    assert.equal(await page.locator("[data-test=tab-memories]").textContent(), "Memories");
    await page.screenshot({ path: join(shots, "memories-desktop-en.png"), fullPage: true });
    await page.click("[data-test=lang]");
    await page.locator("[data-test=tab-memories]", { hasText: "记忆" }).waitFor();
    assert.equal(await page.locator("[data-test=tab-search]").textContent(), "搜索");
    assert.equal(await page.locator("html").getAttribute("lang"), "zh-CN");
    assert.equal(await page.locator("[data-test=export]").textContent(), "导出（JSON Lines）");
    await page.reload();
    await page.locator("[data-test=tab-memories]", { hasText: "记忆" }).waitFor();
    await memory("我喜欢喝绿茶").waitFor();
    await page.screenshot({ path: join(shots, "memories-desktop-zh.png"), fullPage: true });
    await page.click("[data-test=tab-search]");
    await page.fill("[data-test=search-input]", "上海");
    await page.click("[data-test=search-go]");
    await page.locator("[data-test=hit]").first().waitFor();
    assert.match(await page.locator("[data-test=explain]").first().textContent(), /关键词/);
    await page.screenshot({ path: join(shots, "search-desktop-zh.png"), fullPage: true });
    await page.locator("[data-test=hit] .memory-open", { hasText: "用户2026年6月搬到上海了" }).click();
    await panel().locator("[data-test=chain] .chain-node").nth(1).waitFor();
    assert.match(await panel().locator("[data-test=chain]").textContent(), /2026-03-02 – 2026-06-01.*已被替代/);
    await page.screenshot({ path: join(shots, "history-desktop-zh.png") });
    await closePanel();
    await page.click("[data-test=lang]");
    await page.locator("[data-test=tab-memories]", { hasText: "Memories" }).waitFor();
  });

  it("fits a phone's width (375 px) in both languages", async () => {
    for (const lang of ["en", "zh"]) {
      const phone = await openConsole(browser, server.url, { viewport: PHONE, lang, hash: "#/memories" });
      await phone.page.selectOption("[data-test=user-select]", "wang");
      await phone.page.locator("[data-test=memory-content]", { hasText: "我喜欢喝绿茶" }).waitFor();
      const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${lang}: the page is ${overflow}px wider than the phone`);
      await phone.page.screenshot({ path: join(shots, `memories-phone-${lang}.png`), fullPage: true });
      await phone.page.goto(`${server.url}/#/search`);
      await phone.page.fill("[data-test=search-input]", lang === "zh" ? "上海" : "seats");
      await phone.page.click("[data-test=search-go]");
      await phone.page.locator("[data-test=hit]").first().waitFor();
      assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
      await phone.page.screenshot({ path: join(shots, `search-phone-${lang}.png`), fullPage: true });
      await phone.page.locator("[data-test=hit] .memory-open").first().click();
      await phone.page.locator("[data-test=memory-panel] [data-test=chain]").waitFor();
      await phone.page.screenshot({ path: join(shots, `history-phone-${lang}.png`) });
      assert.deepEqual(await problemsOf(phone.page, phone.problems), []);
      await phone.context.close();
    }
  });

  it("never broke the page: no script error, CSP violation, dialog or outside request", async () => {
    assert.deepEqual(await problemsOf(page, problems), []);
    await context.close();
  });
});

