// Every list tool pages: `cursor` in, `next_cursor` out (null on the last page), each platform's
// own cursor sent the way its API takes it. The fake honours page sizes over three items.
import { describe, expect, it } from "vitest";
import { Hub, newScenario, requestsOf, scenarioUrl } from "./platform-helpers";

async function connected(platform: string, config: (hub: Hub) => Record<string, unknown>) {
  const hub = await Hub.create();
  const scenario = newScenario();
  await hub.connect(platform, { ...config(hub), base_url: scenarioUrl(scenario) });
  return { hub, scenario };
}

/** Reads every page with `args`, following next_cursor; returns the pages' results. */
async function allPages(hub: Hub, tool: string, args: Record<string, unknown>) {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const out = await hub.execute(tool, { ...args, ...(cursor ? { cursor } : {}) });
    expect(out).toMatchObject({ success: true, error_message: null });
    pages.push(out.result);
    cursor = out.result.next_cursor ?? undefined;
  } while (cursor && pages.length < 5);
  return pages;
}

describe("list tools page with cursor and next_cursor", () => {
  it("slack_list_channels: Slack's cursor and response_metadata.next_cursor", async () => {
    const { hub, scenario } = await connected("slack", (hub) => ({ bot_token: hub.secret("xoxb-") }));
    const pages = await allPages(hub, "slack_list_channels", { limit: 2 });
    expect(pages.map((p) => p.channels.map((c: any) => c.name))).toEqual([["general", "random"], ["marketing"]]);
    expect(pages[1].next_cursor).toBeNull();
    const [, second] = await requestsOf(scenario);
    expect(second!.query.cursor).toBe(pages[0].next_cursor);
  });

  it("airtable_list_records: Airtable's offset, page by page", async () => {
    const { hub, scenario } = await connected("airtable", (hub) => ({ access_token: hub.secret("pat", ".0123abcd") }));
    const pages = await allPages(hub, "airtable_list_records", { base_id: "appABCDEFGHIJKLMN", table: "Leads", page_size: 2 });
    expect(pages.map((p) => p.records.map((r: any) => r.id))).toEqual([["rec1", "rec2"], ["rec3"]]);
    expect(pages[0].next_cursor).toBe("itrFAKE/rec3");
    const [first, second] = await requestsOf(scenario);
    expect(first!.query).toEqual({ pageSize: "2" });
    expect(second!.query).toEqual({ pageSize: "2", offset: "itrFAKE/rec3" });
  });

  it("notion_query_database: Notion's start_cursor in, next_cursor while has_more", async () => {
    const { hub, scenario } = await connected("notion", (hub) => ({ api_key: hub.secret("ntn_") }));
    const database_id = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
    const pages = await allPages(hub, "notion_query_database", { database_id, page_size: 2 });
    expect(pages.map((p) => p.pages.map((page: any) => page.id))).toEqual([["p1", "p2"], ["p3"]]);
    expect(pages.map((p) => p.next_cursor)).toEqual(["p3", null]);
    const [, second] = await requestsOf(scenario);
    expect(second!.body).toEqual({ page_size: 2, start_cursor: "p3" });
  });

  it("mailchimp_list_audiences: offset and count behind an opaque cursor; a forged cursor is refused", async () => {
    const { hub, scenario } = await connected("mailchimp", (hub) => ({ api_key: hub.secret("", "-us21") }));
    const pages = await allPages(hub, "mailchimp_list_audiences", { count: 2 });
    expect(pages.map((p) => p.audiences.map((a: any) => a.name))).toEqual([["Newsletter", "Customers"], ["Webinar"]]);
    expect(pages[0].next_cursor).toMatch(/^o1\./);
    expect(pages[1].next_cursor).toBeNull();
    const [first, second] = await requestsOf(scenario);
    expect(first!.query.offset).toBeUndefined();
    expect(second!.query).toMatchObject({ count: "2", offset: "2" });

    const forged = await hub.send("/v1/tools/execute", { json: { name: "mailchimp_list_audiences", arguments: { cursor: "offset=2" } } });
    expect(forged.status).toBe(422);
    expect(await requestsOf(scenario)).toHaveLength(2);
  });

  it("hubspot_list_contacts: HubSpot's after in, paging.next.after out", async () => {
    const { hub, scenario } = await connected("hubspot", (hub) => ({ access_token: hub.secret("pat-na1-") }));
    for (const email of ["ada@example.com", "grace@example.com", "linus@example.com"]) await hub.execute("hubspot_create_contact", { email });
    const pages = await allPages(hub, "hubspot_list_contacts", { limit: 2, properties: ["email"] });
    expect(pages.map((p) => p.contacts.map((c: any) => c.properties.email))).toEqual([["ada@example.com", "grace@example.com"], ["linus@example.com"]]);
    expect(pages[0].contacts[0]).toEqual({
      id: "151",
      properties: { email: "ada@example.com" },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(pages.map((p) => p.next_cursor)).toEqual(["2", null]);
    const lists = (await requestsOf(scenario)).filter((r) => r.method === "GET");
    expect(lists.map((r) => r.query)).toEqual([
      { limit: "2", properties: "email", archived: "false" },
      { limit: "2", after: "2", properties: "email", archived: "false" },
    ]);
  });

  it("page sizes are bounded by each API's own maximum", async () => {
    const hub = await Hub.create();
    for (const [tool, args] of [
      ["hubspot_list_contacts", { limit: 101 }],
      ["airtable_list_records", { table: "Leads", page_size: 101 }],
      ["notion_query_database", { database_id: "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", page_size: 101 }],
      ["mailchimp_list_audiences", { count: 1001 }],
      ["slack_list_channels", { limit: 1001 }],
    ] as const) {
      const refused = await hub.send("/v1/tools/execute", { json: { name: tool, arguments: args } });
      expect(refused.status, tool).toBe(422);
    }
  });
});
