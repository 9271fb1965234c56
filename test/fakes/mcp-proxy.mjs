// A recording pass-through in front of the reference MCP server, so tests can see what the hub
// sends it: which JSON-RPC methods, on which sessions. Each test uses its own scenario prefix
// (<proxy>/s/<scenario>/mcp), so parallel test files never see each other's traffic.
//   GET  /__mcp/<scenario>     {messages: [{method, session}], sessions: [ids the server gave]}
//   POST /__expire/<scenario>  ends every session of the scenario on the server (DELETE), as a
//                              server does when sessions expire or it restarts
//   POST /__fail/<scenario>    {status}: answer every later request of the scenario with this HTTP
//                              status (still recorded); {status: 0} forwards again
//   POST /__pages/<scenario>   {tools_per_page, description_bytes}: answer every tools/list itself,
//                              with a page of that many tools and always a nextCursor (a list without end)
import http from "node:http";
import { Readable } from "node:stream";

export function startMcpProxy(port, upstream) {
  const scenarios = new Map();
  const scenario = (name) => {
    if (!scenarios.has(name)) scenarios.set(name, { messages: [], sessions: new Set(), failWith: 0, pages: undefined });
    return scenarios.get(name);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://proxy");
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    try {
      const inspect = url.pathname.match(/^\/__mcp\/([^/]+)$/);
      if (inspect) {
        const s = scenario(inspect[1]);
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ messages: s.messages, sessions: [...s.sessions] }));
      }
      const expire = url.pathname.match(/^\/__expire\/([^/]+)$/);
      if (expire) {
        const s = scenario(expire[1]);
        for (const id of s.sessions) await fetch(upstream, { method: "DELETE", headers: { "mcp-session-id": id } }).catch(() => undefined);
        res.writeHead(204);
        return res.end();
      }
      const fail = url.pathname.match(/^\/__fail\/([^/]+)$/);
      if (fail) {
        scenario(fail[1]).failWith = JSON.parse(body.toString()).status;
        res.writeHead(204);
        return res.end();
      }
      const pages = url.pathname.match(/^\/__pages\/([^/]+)$/);
      if (pages) {
        scenario(pages[1]).pages = JSON.parse(body.toString());
        res.writeHead(204);
        return res.end();
      }
      const forward = url.pathname.match(/^\/s\/([^/]+)\/mcp$/);
      if (!forward) {
        res.writeHead(404);
        return res.end();
      }
      const s = scenario(forward[1]);
      const session = req.headers["mcp-session-id"];
      let parsed = null;
      if (req.method === "POST") {
        parsed = JSON.parse(body.toString() || "null");
        for (const message of Array.isArray(parsed) ? parsed : [parsed]) s.messages.push({ method: message?.method ?? "(response)", session: session ?? null });
      } else {
        s.messages.push({ method: `${req.method} stream`, session: session ?? null });
      }
      if (s.failWith) {
        res.writeHead(s.failWith, { "Content-Type": "text/plain" });
        return res.end("scripted failure");
      }
      if (s.pages && parsed?.method === "tools/list") {
        const page = Number(parsed.params?.cursor ?? 0);
        const description = "x".repeat(s.pages.description_bytes);
        const tools = Array.from({ length: s.pages.tools_per_page }, (_, i) => ({
          name: `tool_${page}_${i}`,
          description,
          inputSchema: { type: "object" },
        }));
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: { tools, nextCursor: String(page + 1) } }));
      }
      const headers = {};
      for (const name of ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id", "authorization"]) {
        if (req.headers[name]) headers[name] = req.headers[name];
      }
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const answer = await fetch(upstream, { method: req.method, headers, body: req.method === "POST" ? body : undefined, signal: controller.signal });
      const given = answer.headers.get("mcp-session-id");
      if (given) s.sessions.add(given);
      const out = {};
      for (const [name, value] of answer.headers) if (!["content-length", "transfer-encoding", "connection"].includes(name)) out[name] = value;
      res.writeHead(answer.status, out);
      if (answer.body)
        Readable.fromWeb(answer.body)
          .on("error", () => res.destroy())
          .pipe(res);
      else res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve({ close: () => new Promise((r) => server.close(r)) })));
}
