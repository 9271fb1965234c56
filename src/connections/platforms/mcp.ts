import { z } from "@hono/zod-openapi";
import { definePlatform } from "./types";

export type McpConfig = {
  url: string;
  token?: string;
  headers?: Record<string, string>;
  transport?: "auto" | "streamable_http" | "sse";
};

/** Any remote MCP server; its tools are loaded from the server, not declared here. */
export const mcp = definePlatform<McpConfig>({
  id: "mcp",
  name: "MCP server",
  description:
    "Any remote Model Context Protocol server. Its tools are loaded from the server (streamable HTTP, falling back to SSE), cached per connection, and named mcp_<connection id>_<tool>.",
  category: "mcp",
  authKind: "optional_bearer",
  config: z.object({
    url: z.string().url().max(2000).meta({ description: "The server's MCP endpoint, e.g. https://mcp.example.com/mcp." }),
    token: z.string().min(1).max(4096).optional().meta({ description: "Sent as Authorization: Bearer <token>.", writeOnly: true, "x-secret": true }),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(4096))
      .optional()
      .meta({ description: "Extra HTTP headers sent to the server (e.g. an API key header).", writeOnly: true, "x-secret": true }),
    transport: z.enum(["auto", "streamable_http", "sse"]).default("auto").optional(),
  }),
  secretFields: ["token", "headers"],
  tools: [],
});
