// A local HTTP server answering each request with the next step of a script, for the
// failures a real engram serve does not produce on demand (a proxy's 502, a dropped
// connection, no reply at all). It records what it was sent.
import { createServer } from "node:http";

/** Script steps: reply(status, body, headers), drop() (closes the socket), hang(). */
export const reply = (status, body = "", headers = {}) => ({ status, body, headers });
export const json = (status, value, headers = {}) =>
  reply(status, JSON.stringify(value), { "Content-Type": "application/json", ...headers });
export const drop = () => ({ drop: true });
export const hang = () => ({ hang: true });

export async function scriptedServer(steps) {
  const requests = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      const step = steps[Math.min(requests.length, steps.length) - 1];
      if (step.drop) return req.socket.destroy();
      if (step.hang) return;
      res.writeHead(step.status, step.headers);
      res.end(step.body);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
