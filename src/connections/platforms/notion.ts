import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type NotionConfig = { api_key: string; base_url?: string };

const NOTION_VERSION = "2022-06-28";
const NotionId = z.string().regex(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);

/**
 * Notion's error reader: `{object: "error", status, code, message}` (developers.notion.com/reference/status-codes).
 * `unauthorized` is a token Notion no longer accepts; `restricted_resource` and `object_not_found`
 * are usually a page or database not shared with the integration, which the message says.
 */
function readNotionError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || body?.object !== "error") return undefined;
  const code = text(body.code, 100);
  const unshared = code === "object_not_found" || code === "restricted_resource" ? " (share the page or database with the integration)" : "";
  return { message: `${text(body.message, 400) ?? code ?? ""}${unshared}`, code, authFailure: code === "unauthorized" ? "error" : null };
}

export const notion = definePlatform<NotionConfig>({
  id: "notion",
  name: "Notion",
  description: "Create pages in Notion databases (content calendars, lead lists) and query them, with an internal integration token.",
  category: "productivity",
  authKind: "bearer_token",
  config: z.object({
    api_key: secret("An internal integration secret (ntn_… or secret_…); share the databases with the integration."),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.notion.com/v1",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.api_key}`, "Notion-Version": NOTION_VERSION }),
  readError: readNotionError,
  async test(client) {
    const me = await client.request<{ name?: string; bot?: { workspace_name?: string } }>({ method: "GET", path: "/users/me" });
    return `Connected as ${me.name ?? "integration"}${me.bot?.workspace_name ? ` in ${me.bot.workspace_name}` : ""}.`;
  },
  tools: [
    platformTool({
      action: "create_page",
      effect: "write",
      title: "Create a Notion page",
      description:
        "Adds a page to a database (POST /pages). `title` fills the database's title property; other `properties` use Notion's property-value objects; `content` becomes paragraphs.",
      input: z.object({
        database_id: NotionId,
        title: z.string().min(1).max(2000),
        title_property: z.string().max(100).default("Name"),
        properties: z.record(z.string(), z.unknown()).optional(),
        content: z.string().max(20_000).optional(),
      }),
      async run(client, args) {
        const paragraphs = (args.content ?? "")
          .split(/\n{2,}/)
          .filter(Boolean)
          .slice(0, 100);
        const page = await client.request<{ id: string; url: string }>({
          method: "POST",
          path: "/pages",
          body: {
            parent: { database_id: args.database_id },
            properties: { ...args.properties, [args.title_property]: { title: [{ text: { content: args.title } }] } },
            children: paragraphs.map((text) => ({
              object: "block",
              type: "paragraph",
              paragraph: { rich_text: [{ type: "text", text: { content: text.slice(0, 2000) } }] },
            })),
          },
        });
        return { id: page.id, url: page.url };
      },
    }),
    platformTool({
      action: "query_database",
      effect: "read",
      title: "Query a Notion database",
      description:
        "Lists a database's pages a page at a time (POST /databases/{id}/query) with an optional Notion filter and sorts; pass the answer's `next_cursor` as `cursor` for the next page (null: no more).",
      input: z.object({
        database_id: NotionId,
        filter: z.record(z.string(), z.unknown()).optional(),
        sorts: z.array(z.record(z.string(), z.unknown())).max(10).optional(),
        page_size: z.number().int().min(1).max(100).default(20),
        cursor: z.string().min(1).max(200).optional().describe("The previous page's next_cursor."),
      }),
      async run(client, args) {
        const result = await client.request<{
          results: { id: string; url: string; properties: Record<string, unknown> }[];
          next_cursor: string | null;
          has_more?: boolean;
        }>({
          method: "POST",
          path: `/databases/${args.database_id}/query`,
          body: { filter: args.filter, sorts: args.sorts, page_size: args.page_size, start_cursor: args.cursor },
        });
        return {
          pages: result.results.map((p) => ({ id: p.id, url: p.url, properties: p.properties })),
          next_cursor: result.has_more === false ? null : (result.next_cursor ?? null),
        };
      },
    }),
  ],
});
