#!/usr/bin/env node
// Runs the console's end-to-end tests with node's built-in runner against a real engram binary:
//   node console/test/run.mjs --engram PATH [test files...]   (default: this folder's *.test.mjs)
// The binary reaches the tests as ENGRAM_BINARY (node --test passes no arguments on), and
// screenshots go to $ENGRAM_ARTIFACTS (default build/console-artifacts).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf("--engram");
if (at < 0 || !args[at + 1]) {
  console.error("usage: node console/test/run.mjs --engram PATH [test files...]");
  process.exit(2);
}
const engram = resolve(args[at + 1]);
args.splice(at, 2);
const files = args.length > 0 ? args : readdirSync(here).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => join(here, f));
const artifacts = resolve(process.env.ENGRAM_ARTIFACTS || join(here, "..", "..", "build", "console-artifacts"));
const result = spawnSync(process.execPath, ["--test", ...files], {
  stdio: "inherit",
  env: { ...process.env, ENGRAM_BINARY: engram, ENGRAM_CONSOLE_ARTIFACTS: artifacts },
});
process.exit(result.status ?? 1);
