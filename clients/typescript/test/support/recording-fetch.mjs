// A fetch that remembers which operations of the API it carried, so a test can assert that
// it exercised every route of docs/openapi.json.
import { OPERATIONS } from "engram-client";

function templateRegex(path) {
  return new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`);
}

export function recordingFetch() {
  const seen = new Set();
  const routes = Object.entries(OPERATIONS).map(([id, op]) => ({ id, ...op, re: templateRegex(op.path) }));
  const fetchAndRecord = (input, init = {}) => {
    const { pathname } = new URL(input);
    const method = init.method ?? "GET";
    const route = routes.find((r) => r.method === method && r.re.test(pathname));
    if (route) seen.add(route.id);
    return fetch(input, init);
  };
  return { fetch: fetchAndRecord, seen, all: Object.keys(OPERATIONS) };
}
