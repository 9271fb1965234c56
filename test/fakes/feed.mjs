// A JSON feed on loopback whose items the caller grows, for poll triggers (an `http_request` tool
// with `items_path: "body.items"`). `GET /feed/<name>` answers `{items: [...]}`, newest first, and
// records when each feed was read, so a test or a benchmark can tell when each agent polled.
// Used by the poll crash drill (test/e2e/poll-crash.test.ts) and the trigger benchmark
// (bench/triggers.mjs).
import { createServer } from "node:http";

/**
 * @typedef {{ id: string, n: number, added_at: string }} FeedItem
 * @typedef {{
 *   origin: string,
 *   url: (name: string) => string,
 *   add: (name: string, id: string) => FeedItem,
 *   items: (name: string) => FeedItem[],
 *   reads: (name: string) => number[],
 *   close: () => Promise<void>,
 * }} Feed
 */

/**
 * Starts the feed on 127.0.0.1 (a free port). `latencyMs` delays every answer, so a poll's call
 * is in flight for that long. `keepAliveMs` is how long an idle connection stays open (60 s, well
 * over any poll interval used here: a server that closes idle connections sooner than the
 * interval races the hub reusing them, and some polls then fail with "Network connection lost").
 * Items are added with `add(name, id)`; `reads(name)` lists the times (epoch ms) the feed `name`
 * was asked for.
 * @param {{ latencyMs?: number, keepAliveMs?: number }} [options]
 * @returns {Promise<Feed>}
 */
export async function startFeed({ latencyMs = 0, keepAliveMs = 60_000 } = {}) {
  /** @type {Map<string, FeedItem[]>} */
  const feeds = new Map();
  /** @type {Map<string, number[]>} */
  const readsOf = new Map();
  const server = createServer((req, res) => {
    const name = /^\/feed\/([\w.-]{1,100})$/.exec(req.url ?? "")?.[1];
    req.resume();
    if (req.method !== "GET" || !name) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end('{"error":"not found"}');
      return;
    }
    const at = Date.now();
    const reads = readsOf.get(name) ?? [];
    reads.push(at);
    readsOf.set(name, reads);
    // The list as it was when the request came: an item added while the answer waits is new next time.
    const body = JSON.stringify({ items: [...(feeds.get(name) ?? [])].reverse() });
    const answer = () => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(body);
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  server.keepAliveTimeout = keepAliveMs;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    origin,
    url: (name) => `${origin}/feed/${name}`,
    add(name, id) {
      const list = feeds.get(name) ?? [];
      const item = { id, n: list.length, added_at: new Date().toISOString() };
      list.push(item);
      feeds.set(name, list);
      return item;
    },
    items: (name) => [...(feeds.get(name) ?? [])],
    reads: (name) => [...(readsOf.get(name) ?? [])],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}
