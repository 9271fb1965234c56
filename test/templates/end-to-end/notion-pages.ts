// Notion database query answers as Notion sends them (developers.notion.com/reference/post-database-query):
// a list of page objects with their properties, `has_more` and `next_cursor` for the next page.

/** A content-calendar page: its title, status and publish date (property named `dateProperty`). */
export function contentPage(n: number, title: string, dateProperty = "Publish date") {
  const id = `2f1c${String(n).padStart(4, "0")}-6a3b-4c5d-8e9f-0a1b2c3d4e5f`;
  return {
    object: "page",
    id,
    created_time: "2026-11-16T09:00:00.000Z",
    last_edited_time: "2026-11-18T10:30:00.000Z",
    archived: false,
    url: `https://www.notion.so/${id.replace(/-/g, "")}`,
    properties: {
      Name: { id: "title", type: "title", title: [{ type: "text", text: { content: title, link: null }, plain_text: title, href: null }] },
      Status: { id: "s%3Aa", type: "status", status: { id: "done", name: "Published", color: "green" } },
      [dateProperty]: { id: "d%3Ab", type: "date", date: { start: "2026-11-18", end: null, time_zone: null } },
    },
  };
}

/** One page of a database query's answer. */
export const queryAnswer = (results: unknown[], nextCursor: string | null) => ({
  body: { object: "list", results, next_cursor: nextCursor, has_more: nextCursor !== null, type: "page_or_database", page_or_database: {} },
});

/** Notion's answer for a database not shared with the integration. */
export const notShared = (databaseId: string) => ({
  status: 404,
  body: {
    object: "error",
    status: 404,
    code: "object_not_found",
    message: `Could not find database with ID: ${databaseId}. Make sure the relevant pages and databases are shared with your integration.`,
  },
});

export const DATABASE_ID = "8e2b4c1d-3f5a-4b6c-9d7e-0f1a2b3c4d5e";
