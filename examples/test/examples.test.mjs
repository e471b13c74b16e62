// Runs each example chat loop against a real engram serve and the fake OpenAI endpoint, twice
// per user: the first run tells a fact, the second (a new process and session) asks about it,
// and the fact must reach the model's prompt from Engram's long-term memory.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startEngram } from "../../clients/typescript/test/support/engram-server.mjs";
import { startFakeOpenAI } from "./fake-openai.mjs";

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), "..");
let engram, openai;

before(async () => {
  engram = await startEngram();
  openai = await startFakeOpenAI();
});

after(async () => {
  await openai.close();
  await engram.stop();
});

/** Runs an example with `lines` on its standard input; resolves to its standard output. */
function runExample(file, user, lines) {
  const env = {
    ...process.env,
    ENGRAM_URL: engram.url,
    ENGRAM_USER: user,
    OPENAI_BASE_URL: openai.url,
    OPENAI_API_KEY: "sk-test",
  };
  delete env.ENGRAM_API_KEY; // the test server is keyless
  const child = spawn(process.execPath, [join(EXAMPLES, file)], { env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  child.stdin.end(lines.map((l) => `${l}\n`).join(""));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${file} exited ${code}\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

function systemMessages(request) {
  return request.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
}

for (const file of ["openai-chat.mjs", "langchain-chat.mjs", "ai-sdk-chat.mjs"]) {
  test(`${file}: a fact told in one conversation reaches the model in the next`, async () => {
    const user = file.replace(".mjs", "");
    const first = await runExample(file, user, ["I am allergic to peanuts"]);
    assert.equal(first, "assistant: You said: I am allergic to peanuts\n");

    const before = openai.requests.length;
    const second = await runExample(file, user, ["Am I allergic to anything?"]);
    assert.equal(second, "assistant: You said: Am I allergic to anything?\n");
    const request = openai.requests[before];
    assert.match(systemMessages(request), /allergic to peanuts/, JSON.stringify(request.messages));
  });
}
