// Headless Chromium for the console's tests: Debian's /usr/bin/chromium driven by
// playwright-core (npm ships no browser here). Each launch gets a fresh profile, and the flags
// keep Chromium from calling out to the network (updates, sync, QUIC probes), which here is
// closed. Every page records what must never happen: a script error, a CSP violation, a
// JavaScript dialog (an injected alert), a request to anywhere but the server.
import { chromium } from "playwright-core";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 375, height: 780 };

/** Where screenshots go: $ENGRAM_ARTIFACTS/console, else build/console-artifacts. */
export function artifactsDir() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
  const dir = process.env.ENGRAM_ARTIFACTS
    ? join(process.env.ENGRAM_ARTIFACTS, "console")
    : join(root, "build", "console-artifacts");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Chromium with a fresh profile (playwright makes a temporary user-data-dir per launch). */
export async function launch() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (scripts/install-deps.sh does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
}

/**
 * A new context (its own storage: another person's browser) and page on the console.
 * `lang` is put in localStorage before the page loads; problems[] collects what went wrong.
 */
export async function openConsole(browser, baseUrl, { viewport = DESKTOP, lang = "en", hash = "" } = {}) {
  const context = await browser.newContext({ viewport, timezoneId: "UTC", locale: "en-US", acceptDownloads: true });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(baseUrl).origin;
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 40[134]/.test(m.text())) problems.push(`console error: ${m.text()}`);
    if (/Content Security Policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  page.on("dialog", async (d) => {
    problems.push(`javascript dialog: ${d.type()} ${d.message()}`);
    await d.dismiss();
  });
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith("data:") && !u.startsWith("blob:")) problems.push(`request elsewhere: ${u}`);
  });
  await page.addInitScript((l) => {
    // CSP violations reach the page as events too: recorded for the test to read.
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    if (!localStorage.getItem("engram.console.lang")) localStorage.setItem("engram.console.lang", l);
  }, lang);
  await page.goto(`${baseUrl}/${hash}`);
  return { context, page, problems };
}

/** Problems recorded so far, CSP events included. */
export async function problemsOf(page, problems) {
  const csp = await page.evaluate(() => window.__csp ?? []).catch(() => []);
  return [...problems, ...csp.map((c) => `CSP violation: ${c}`)];
}
