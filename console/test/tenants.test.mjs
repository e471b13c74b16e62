// The console on a server with API keys: it asks for a key (a 401 from /v1), sends it as
// Authorization: Bearer, and shows only the key's tenant — tenant A's console never shows, nor
// even receives, tenant B's memories, though both tenants have a user with the same id. An admin
// key gets the Admin page: keys (create, revoke after asking), tenants, the audit log.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EngramServer } from "../../clients/typescript/test/support/engram-server.mjs";
import { artifactsDir, launch, openConsole, problemsOf } from "./support/browser.mjs";
import { api } from "./support/seed.mjs";

const dist = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const SECRET_B = "GLOBEX-SECRET";

let server;
let browser;
let keyA;
let keyB;
let admin;

/** Every /v1 body the page receives, to prove B's data never reaches A's console. */
function recordBodies(page) {
  const bodies = [];
  page.on("response", async (res) => {
    if (!new URL(res.url()).pathname.startsWith("/v1/")) return;
    try {
      bodies.push(await res.text());
    } catch {
      // a body the page did not read (a redirect, an aborted request)
    }
  });
  return bodies;
}

async function giveKey(page, key, expect = /needs an API key/) {
  // This prompt, by its message: a refused key is followed at once by another prompt.
  const prompt = page.locator("dialog.key-prompt", { hasText: expect });
  await prompt.waitFor();
  await page.fill("[data-test=key-input]", key);
  await page.click("[data-test=key-submit]");
  await prompt.waitFor({ state: "detached" });
}

async function userOptions(page) {
  return page.locator("[data-test=user-select] option").evaluateAll((opts) => opts.map((o) => o.value).filter(Boolean).sort());
}

describe("console with API keys and two tenants", () => {
  before(async () => {
    server = new EngramServer(["--console-dir", dist, "--maintain-interval", "0"]);
    keyA = server.createKey({ tenant: "acme", name: "acme-app" }).secret;
    keyB = server.createKey({ tenant: "globex", name: "globex-app" }).secret;
    admin = server.createKey({ tenant: "ops", admin: true, name: "root" }).secret;
    await server.start();
    const batch = (key, user, contents) =>
      api(server.url, "POST", "/v1/memories/batch", {
        user_id: user,
        infer: false,
        memories: contents.map((content, i) => ({ content, type: "fact", created_at: `2026-0${i + 3}-15T10:00:00Z` })),
      }, key);
    await batch(keyA, "wang", ["ACME: 我住在杭州", "ACME: prefers oolong tea"]);
    await batch(keyB, "wang", [`${SECRET_B}: lives in Lisbon`, `${SECRET_B}: prefers oolong tea`]);
    await batch(keyB, "bob", [`${SECRET_B}: bob likes sailing`]);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("asks for a key, then shows tenant A's data and never B's", async () => {
    const { context, page, problems } = await openConsole(browser, server.url, { hash: "#/memories" });
    const bodies = recordBodies(page);
    await giveKey(page, keyA);
    await page.locator("[data-test=memory-content]", { hasText: "ACME: 我住在杭州" }).waitFor();
    assert.deepEqual(await userOptions(page), ["wang"]);

    await page.click("[data-test=tab-search]");
    await page.fill("[data-test=search-input]", "oolong tea Lisbon sailing");
    await page.click("[data-test=search-go]");
    await page.locator("[data-test=hit]").first().waitFor();
    const hits = await page.locator("[data-test=hit] [data-test=memory-content]").allTextContents();
    assert.equal(hits[0], "ACME: prefers oolong tea");
    assert.ok(hits.every((h) => h.startsWith("ACME: ")), `hits: ${hits}`);

    await page.reload(); // the key stays for this tab (sessionStorage): no prompt
    await page.locator("[data-test=hit], [data-test=search-input]").first().waitFor();
    assert.equal(await page.locator("dialog.key-prompt").count(), 0);
    assert.ok(!(await page.locator("body").textContent()).includes(SECRET_B));
    assert.ok(bodies.length > 3 && bodies.every((b) => !b.includes(SECRET_B)), "no /v1 answer carried B's data");
    // No admin call was made on the way (it would be a refused "admin" entry in the audit log);
    // the Admin page makes one when opened, and a tenant key is told it needs an admin key.
    assert.ok(!bodies.some((b) => /permission_denied/.test(b)), "no admin call was refused");
    await page.click("[data-test=tab-admin]");
    assert.match(await page.locator("[data-test=admin-refused]").textContent(), /needs an admin key/);
    await page.locator("[data-test=tab-admin].dim").waitFor();
    assert.deepEqual(await problemsOf(page, problems), []);
    await context.close();
  });

  it("asks again when a key is refused, and a new key drops the old tenant's data", async () => {
    const { context, page, problems } = await openConsole(browser, server.url, { hash: "#/memories" });
    await giveKey(page, keyA);
    await page.locator("[data-test=memory-content]", { hasText: "ACME: 我住在杭州" }).waitFor();

    await page.click("[data-test=key-button]");
    await giveKey(page, "egk_not_a_real_key", /another key/);
    await giveKey(page, keyB, /did not accept/);
    await page.locator("[data-test=memory-content]", { hasText: `${SECRET_B}: bob likes sailing` }).waitFor();
    assert.deepEqual(await userOptions(page), ["bob", "wang"]);
    await page.selectOption("[data-test=user-select]", "wang"); // B's wang, not A's
    await page.locator("[data-test=memory-content]", { hasText: `${SECRET_B}: lives in Lisbon` }).waitFor();
    assert.ok(!(await page.locator("body").textContent()).includes("ACME"), "nothing of tenant A stays on screen");
    assert.deepEqual(await problemsOf(page, problems), []);
    await context.close();
  });

  it("gives an admin key the Admin page: keys, tenants, audit log", async () => {
    const { context, page, problems } = await openConsole(browser, server.url, { hash: "#/admin" });
    await giveKey(page, admin);
    await page.click("[data-test=tab-admin]");
    const keys = page.locator("[data-test=keys]");
    await keys.waitFor();
    for (const tenant of ["acme", "globex", "ops"]) assert.match(await keys.textContent(), new RegExp(tenant));
    assert.match(await page.locator("[data-test=tenants]").textContent(), /globex/);

    await page.fill("[data-test=new-key-tenant]", "initech");
    await page.fill("[data-test=new-key-name]", "console-made");
    await page.click("[data-test=new-key-go]");
    const secret = await page.locator("[data-test=new-key-secret]").inputValue();
    assert.match(secret, /^egk_/);
    const made = keys.locator("tr", { hasText: "console-made" });
    await made.waitFor();
    await made.locator("[data-test=revoke]").click();
    await page.locator("[data-test=confirm-ok]").click();
    await keys.locator("tr", { hasText: "console-made" }).locator("text=/revoked/").waitFor();
    const listed = await api(server.url, "GET", "/v1/admin/keys", undefined, admin);
    assert.ok(listed.results.find((k) => k.name === "console-made").revoked_at, "revoked on the server");
    const refused = await fetch(`${server.url}/v1/users`, { headers: { Authorization: `Bearer ${secret}` } });
    assert.equal(refused.status, 401);

    await page.fill("[data-test=audit-tenant]", "acme");
    await page.click("[data-test=audit-go]");
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll("[data-test=audit] tbody tr")];
      return rows.length > 0 && rows.every((r) => r.children[1].textContent === "acme");
    });
    await page.screenshot({ path: join(artifactsDir(), "admin-desktop-en.png"), fullPage: true });
    assert.deepEqual(await problemsOf(page, problems), []);
    await context.close();
  });
});
