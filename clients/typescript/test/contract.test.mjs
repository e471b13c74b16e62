// The client cannot drift from docs/openapi.json: its types are generated from the document
// (and must be current), and every operation the document lists has a method of the same
// name calling that method and path.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { API_VERSION, EngramClient, OPERATIONS } from "engram-client";
import { generate, OUT_PATH, SPEC_PATH } from "../scripts/gen-types.mjs";

const spec = JSON.parse(readFileSync(SPEC_PATH, "utf8"));

function specOperations() {
  const ops = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (["get", "post", "put", "patch", "delete"].includes(method)) {
        ops.push({ id: op.operationId, method: method.toUpperCase(), path });
      }
    }
  }
  return ops;
}

test("src/generated/openapi.ts is what docs/openapi.json generates", () => {
  assert.equal(readFileSync(OUT_PATH, "utf8"), generate(spec), "run `npm run generate`");
  assert.equal(API_VERSION, spec.info.version);
});

test("every route of docs/openapi.json has a typed client method", () => {
  const ops = specOperations();
  assert.ok(ops.length >= 30, `only ${ops.length} operations found`);
  for (const { id, method, path } of ops) {
    assert.equal(typeof EngramClient.prototype[id], "function", `no client method ${id} (${method} ${path})`);
    assert.deepEqual([OPERATIONS[id].method, OPERATIONS[id].path], [method, path], id);
  }
});

test("the client has no method for a route the document does not list", () => {
  const ids = new Set(specOperations().map((op) => op.id));
  const own = Object.getOwnPropertyNames(EngramClient.prototype).filter(
    (name) => !["constructor", "request", "baseUrl"].includes(name),
  );
  assert.deepEqual(own.filter((name) => !ids.has(name)), []);
});
