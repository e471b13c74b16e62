// Runs the real `engram serve` for a test: a temporary database, an ephemeral loopback port
// (the server prints its URL as the first line of stdout), stopped with SIGTERM. The binary
// comes from --engram (test/run.mjs puts it in ENGRAM_BINARY), like the black-box tests'.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import net from "node:net";
import { createInterface } from "node:readline";

export function engramBinary() {
  const path = process.env.ENGRAM_BINARY;
  if (!path) throw new Error("no engram binary: run the tests with test/run.mjs --engram PATH");
  return path;
}

/** The environment without ENGRAM_ settings, so the caller's cannot change the server. */
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ENGRAM_")));
}

export class EngramServer {
  constructor(args = []) {
    this.dir = mkdtempSync(join(tmpdir(), "engram-client-test-"));
    this.db = join(this.dir, "engram.db");
    this.args = args;
    this.url = undefined;
    this.stderr = "";
  }

  /** `engram --db DB [--tenant T] ARGS...` once (keys create, ...); its stdout. */
  cli(args, tenant) {
    const tenantArgs = tenant ? ["--tenant", tenant] : [];
    return execFileSync(engramBinary(), ["--db", this.db, ...tenantArgs, ...args], {
      env: cleanEnv(),
      encoding: "utf8",
    });
  }

  /** Creates an API key with the CLI: {id, secret, tenant, role, ...}. */
  createKey({ tenant = "default", admin = false, name = "" } = {}) {
    const args = ["--json", "keys", "create", ...(admin ? ["--admin"] : [])];
    if (name) args.push("--name", name);
    return JSON.parse(this.cli(args, tenant));
  }

  async start() {
    const args = ["--db", this.db, "serve", "--port", "0", "--access-log", "", ...this.args];
    this.proc = spawn(engramBinary(), args, { env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    this.proc.stderr.on("data", (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.proc.once("exit", (code, signal) => resolve({ code, signal })));
    const lines = createInterface({ input: this.proc.stdout });
    let timer;
    const first = await Promise.race([
      new Promise((resolve) => lines.once("line", resolve)),
      this.exited.then(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, 20_000))),
    ]);
    clearTimeout(timer);
    if (!first || !/^https?:\/\//.test(first)) {
      this.proc.kill("SIGKILL");
      throw new Error(`engram serve printed no URL (${first}); stderr:\n${this.stderr}`);
    }
    lines.on("line", () => {}); // keep draining stdout so the server never blocks on it
    this.url = first.trim();
    this.port = Number(new URL(this.url).port);
    return this;
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill("SIGTERM");
      const timer = setTimeout(() => this.proc.kill("SIGKILL"), 15_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Starts a server for a test file: `const server = await startEngram(["--rate-limit", "1"])`. */
export async function startEngram(args = [], beforeStart = () => {}) {
  const server = new EngramServer(args);
  await beforeStart(server); // e.g. create keys, so the server starts with them
  return server.start();
}

/** Opens a connection and keeps it, taking the slot of a server run with --max-connections 1. */
export async function holdConnection(port) {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  await new Promise((resolve) => setTimeout(resolve, 100)); // the server has counted it by then
  return socket;
}
