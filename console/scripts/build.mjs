#!/usr/bin/env node
// Builds the console into console/dist, the folder engram serve compiles in (and serves from
// disk with --console-dir):
//   node console/scripts/build.mjs             build into console/dist
//   node console/scripts/build.mjs --out DIR   build into DIR
//   node console/scripts/build.mjs --check     build in memory and fail (exit 1) if
//                                              console/dist differs: it is committed, so a
//                                              change to src/ without a rebuild is caught
// tsc type-checks src/*.ts (tsconfig.json), then TypeScript's transpileModule turns each file
// into one ES module (no bundler: nothing to install beyond the TypeScript the workspace already
// has, the output reads like the source, and emitting file by file needs no other package's
// build first). dist/ is flat, as the server wants: /console/<name>. index.html gets a
// modulepreload link per module, so the browser fetches them all at once instead of
// discovering imports level by level.
// The output is checked: every import is a relative ./x.js that exists (no package reaches the
// page at run time), and no HTML is ever parsed from a string (innerHTML and kin).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const consoleDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(consoleDir, "..");
const srcDir = join(consoleDir, "src");
const distDir = join(consoleDir, "dist");
const require = createRequire(import.meta.url);
const ts = require("typescript");
const tsc = require.resolve("typescript/lib/tsc.js");

const EMIT = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  verbatimModuleSyntax: true, // type-only imports go, every other import stays as written
  removeComments: true, // the source has the comments; the page needs none
  newLine: ts.NewLineKind.LineFeed,
};

const FORBIDDEN = [/\binnerHTML\b/, /\bouterHTML\b/, /\binsertAdjacentHTML\b/, /\bdocument\.write\b/, /\beval\s*\(/, /\bnew Function\b/];

function fail(message) {
  console.error(`console build: ${message}`);
  process.exit(1);
}

function runTsc(args) {
  try {
    execFileSync(process.execPath, [tsc, ...args], { stdio: "inherit", cwd: repo });
  } catch {
    fail(`tsc ${args.join(" ")} failed`);
  }
}

function checkModule(name, text, names) {
  for (const pattern of FORBIDDEN) {
    if (pattern.test(text)) fail(`${name} uses ${pattern.source}: build DOM nodes with dom.ts`);
  }
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]);
  for (const spec of specifiers) {
    if (!/^\.\/[A-Za-z0-9_.-]+\.js$/.test(spec) || !names.has(spec.slice(2))) {
      fail(`${name} imports ${spec}: only this folder's own modules may be imported at run time`);
    }
  }
}

/** The files of dist/, name → content. */
function build() {
  runTsc(["--noEmit", "-p", join(consoleDir, "tsconfig.json")]);
  const files = new Map();
  for (const source of readdirSync(srcDir).filter((n) => n.endsWith(".ts")).sort()) {
    const text = readFileSync(join(srcDir, source), "utf8");
    const out = ts.transpileModule(text, { compilerOptions: EMIT, fileName: source, reportDiagnostics: true });
    if (out.diagnostics?.length) fail(`${source}: ${ts.flattenDiagnosticMessageText(out.diagnostics[0].messageText, " ")}`);
    files.set(source.replace(/\.ts$/, ".js"), out.outputText);
  }
  const names = new Set(files.keys());
  for (const [name, text] of files) checkModule(name, text, names);
  if (!names.has("app.js")) fail("no app.js");
  const preload = [...names]
    .filter((n) => n !== "app.js")
    .map((n) => `<link rel="modulepreload" href="/console/${n}">`)
    .join("\n");
  const html = readFileSync(join(srcDir, "index.html"), "utf8");
  if (!html.includes("<!-- modulepreload -->")) fail("src/index.html lacks the <!-- modulepreload --> marker");
  files.set("index.html", html.replace("<!-- modulepreload -->", preload));
  files.set("app.css", readFileSync(join(srcDir, "app.css"), "utf8"));
  return files;
}

function write(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (!files.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
  }
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}

/** The names that differ between `files` and what `dir` holds. */
function differences(dir, files) {
  const have = existsSync(dir) ? readdirSync(dir) : [];
  const out = [];
  for (const name of have) if (!files.has(name)) out.push(`${name} (in dist/, not built from src/)`);
  for (const [name, text] of files) {
    if (!have.includes(name)) out.push(`${name} (missing from dist/)`);
    else if (readFileSync(join(dir, name), "utf8") !== text) out.push(`${name} (differs)`);
  }
  return out;
}

const args = process.argv.slice(2);
const files = build();
if (args[0] === "--check") {
  const stale = differences(distDir, files);
  if (stale.length > 0) {
    console.error(`console/dist is stale (run: npm run build -w console):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`console/dist is current with console/src (${files.size} files)`);
} else {
  const out = args[0] === "--out" && args[1] ? resolve(args[1]) : distDir;
  write(out, files);
  const bytes = [...files.values()].reduce((n, text) => n + Buffer.byteLength(text), 0);
  console.log(`console: ${files.size} files, ${(bytes / 1024).toFixed(1)} KiB → ${out}`);
}
