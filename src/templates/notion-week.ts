/**
 * The steps the weekly Notion templates share: the content database's pages published in the
 * last seven days, all of them (Notion answers 100 at most per page, so the query follows the
 * cursor), and a `digest` code step that lists them for Slack and for a model.
 */

/**
 * Rows per query page, and the pages followed at most (1,000 rows: a week of content fits many
 * times over). 50 rather than Notion's 100 keeps a page of rich pages under a step result's cap.
 */
export const NOTION_WEEK_PAGE_SIZE = 50;
export const NOTION_WEEK_PAGES = 20;

const query = (page: number, filter: unknown, sorts: unknown[]) => ({
  id: `page${page}`,
  type: "tool",
  tool: "notion_query_database",
  arguments: {
    database_id: "{{database_id}}",
    filter,
    sorts,
    page_size: NOTION_WEEK_PAGE_SIZE,
    ...(page > 1 ? { cursor: `{{steps.page${page - 1}.result.next_cursor}}` } : {}),
  },
});

/** `page1`, then `page2` only when `page1` says there is more, and so on (nested conditions). */
function pagesFrom(page: number, filter: unknown, sorts: unknown[]): unknown[] {
  const steps = [query(page, filter, sorts)];
  if (page === NOTION_WEEK_PAGES) return steps;
  const more = { field: `steps.page${page}.result.next_cursor`, operator: "exists" };
  return [...steps, { id: `more_after_page${page}`, type: "condition", condition: more, then: pagesFrom(page + 1, filter, sorts), else: [] }];
}

/**
 * `since` (seven days ago) and the pages whose `{{status_property}}` is Published and whose
 * `{{date_property}}` falls on or after it, oldest first.
 */
export function publishedInTheLastWeek(): unknown[] {
  const filter = {
    and: [
      { property: "{{status_property}}", status: { equals: "Published" } },
      { property: "{{date_property}}", date: { on_or_after: "{{steps.since.result.iso}}" } },
    ],
  };
  const sorts = [{ property: "{{date_property}}", direction: "ascending" }];
  return [{ id: "since", type: "tool", tool: "datetime", arguments: { operation: "add", amount: -7, unit: "days" } }, ...pagesFrom(1, filter, sorts)];
}

/**
 * The digest of the pages read: `count`, `slack` (a mrkdwn list of linked titles, the first 100)
 * and `text` (a plain list for a model's prompt). Runs in the code sandbox.
 */
export const DIGEST_CODE = `
const { steps } = input;
const pages = [];
for (let n = 1; steps["page" + n]; n++) {
  const result = steps["page" + n].result;
  if (!Array.isArray(result.pages)) throw new Error("Notion page " + n + " of the query was too large to keep: use fewer properties in the database.");
  pages.push(...result.pages);
}
const title = (page) => {
  const property = Object.values(page.properties || {}).find((p) => p && p.type === "title");
  return ((property && property.title) || []).map((t) => t.plain_text || "").join("").trim() || "Untitled";
};
const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const shown = pages.slice(0, 100);
const more = pages.length > shown.length ? "\\n…and " + (pages.length - shown.length) + " more" : "";
return {
  count: pages.length,
  slack: shown.map((p) => "• <" + p.url + "|" + escape(title(p)) + ">").join("\\n") + more,
  text: shown.map((p) => "- " + title(p) + " (" + p.url + ")").join("\\n") + more,
};
`.trim();
