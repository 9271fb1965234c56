import { describe, expect, it } from "vitest";
import {
  MAX_OFFERED,
  SEARCH_TOOLS,
  buildToolIndex,
  catalogToolChoice,
  conversationSoFar,
  runSearchTools,
  toolIndexBuilds,
  toolIndexFor,
  toolsForRequest,
  usedOrFound,
} from "../../src/agent-loop/tools";
import type { ChatMessage } from "../../src/llm/types";
import type { ToolInfo } from "../../src/tools/types";
import { call, json, newApiKey, newUser } from "../helpers/api";

function tool(
  name: string,
  description: string,
  options: { title?: string; platform?: string | null; parameters?: string[]; available?: boolean } = {},
): ToolInfo {
  const parameters = options.parameters ?? [];
  return {
    name,
    title: options.title ?? name,
    description,
    source: options.platform === undefined || options.platform === "mcp" ? "mcp" : options.platform === null ? "builtin" : "platform",
    platform: options.platform === undefined ? "mcp" : options.platform,
    connection_id: null,
    input_schema: { type: "object", properties: Object.fromEntries(parameters.map((p) => [p, { type: "string" }])) },
    effect: "read",
    available: options.available ?? true,
  };
}

/** A small catalog whose tools share few words, so each test word points at one tool. */
const SMALL: ToolInfo[] = [
  tool("mail_send", "Send an email to one recipient.", { parameters: ["to", "subject", "body"] }),
  tool("sheet_append", "Append rows to a spreadsheet.", { parameters: ["spreadsheet_id", "rows"] }),
  tool("ledger_lookup", "Look up an entry of the ledger.", { parameters: ["invoice_number"] }),
  tool("telegram_post_message", "Posts a text to a chat.", { title: "Post a message", platform: "telegram", parameters: ["chat_id", "text"] }),
  tool("uuid_generate", "Returns random identifiers.", { platform: null }),
];

/**
 * A catalog at scale: 50 servers of one kind each with the same 20 verbs and objects (the
 * overlap real MCP catalogs have), plus a few tools of their own.
 */
function largeCatalog(): ToolInfo[] {
  const verbs = ["create", "get", "update", "delete", "list"];
  const objects = ["contact", "deal", "note", "task"];
  const tools: ToolInfo[] = [];
  for (let server = 0; server < 50; server++) {
    const product = `Product${server}`;
    for (const verb of verbs) {
      for (const object of objects) {
        tools.push(tool(`mcp_${100 + server}_${verb}_${object}`, `${verb} a ${object} in ${product}.`, { parameters: [`${object}_id`, "fields"] }));
      }
    }
  }
  tools.push(
    tool("twilio_send_sms", "Sends an SMS from a Twilio number.", { title: "Send an SMS with Twilio", platform: "twilio", parameters: ["to", "body"] }),
    tool("stripe_create_refund", "Refunds a charge in full or in part.", {
      title: "Refund a Stripe payment",
      platform: "stripe",
      parameters: ["charge", "amount"],
    }),
    tool("zendesk_create_ticket", "Opens a ticket with a subject and a first comment.", {
      title: "Create a Zendesk ticket",
      platform: "zendesk",
      parameters: ["subject", "comment", "requester_email"],
    }),
    tool("slack_send_message", "Posts a message to a channel.", { title: "Send a Slack message", platform: "slack", parameters: ["channel", "text"] }),
    tool("hidden_tool", "Sends things nobody may use.", { available: false }),
  );
  return tools;
}

const names = (specs: Array<{ name: string }>) => specs.map((s) => s.name);

describe("tool ranking", () => {
  it("finds a tool by a stemmed word, by a parameter name and by its platform", () => {
    const index = buildToolIndex(SMALL);
    const stemmed = index.rank("sending the quarterly report", 3);
    expect(stemmed[0]?.tool.name).toBe("mail_send");
    expect(stemmed[0]?.matched).toContainEqual({ word: "sending", fields: ["name", "title", "description"] });
    const byParameter = index.rank("which entry has invoice number 42?", 3);
    expect(byParameter[0]?.tool.name).toBe("ledger_lookup");
    expect(byParameter[0]?.matched).toContainEqual({ word: "invoice", fields: ["parameters"] });
    const byPlatform = index.rank("something for telegram", 3);
    expect(byPlatform[0]?.tool.name).toBe("telegram_post_message");
    expect(byPlatform[0]?.matched).toContainEqual({ word: "telegram", fields: ["platform"] });
    // camelCase and snake_case names meet plain words.
    const camel = buildToolIndex([tool("mcp_1_createInvoice", "Makes one."), tool("mcp_1_other", "Something else.")]);
    expect(camel.rank("create an invoice", 1)[0]?.tool.name).toBe("mcp_1_createInvoice");
  });

  it("is deterministic: the same tools in any order rank the same, ties by name", () => {
    const catalog = largeCatalog();
    const shuffled = [...catalog].reverse();
    const a = buildToolIndex(catalog).rank("create a contact and a deal", 30);
    const b = buildToolIndex(shuffled).rank("create a contact and a deal", 30);
    expect(a.map((r) => [r.tool.name, r.score])).toEqual(b.map((r) => [r.tool.name, r.score]));
    // Fifty servers have the same create_contact: equal scores, in name order.
    const tied = a.filter((r) => r.score === a[0]!.score).map((r) => r.tool.name);
    expect(tied.length).toBeGreaterThan(1);
    expect(tied).toEqual([...tied].sort());
  });

  it("builds the index once per catalog version", () => {
    const catalog = largeCatalog();
    const before = toolIndexBuilds();
    const first = toolIndexFor(catalog);
    expect(toolIndexBuilds()).toBe(before + 1);
    // The same catalog read again (a new array of new objects, as each turn reads it): no build.
    expect(toolIndexFor(structuredClone(catalog))).toBe(first);
    toolsForRequest({ catalog, conversation: "send an sms", usedOrFound: [] });
    expect(toolIndexBuilds()).toBe(before + 1);
    // A changed description is a new version.
    const changed = catalog.map((t) => (t.name === "twilio_send_sms" ? { ...t, description: "Sends a text message." } : t));
    expect(toolIndexFor(changed)).not.toBe(first);
    expect(toolIndexBuilds()).toBe(before + 2);
    expect(toolIndexFor(catalog)).toBe(first);
    expect(toolIndexBuilds()).toBe(before + 2);
  });
});

describe("the tools a request carries", () => {
  it("offers a catalog of at most 20 tools whole, without search_tools", () => {
    const catalog = [...SMALL, ...Array.from({ length: 15 }, (_, i) => tool(`extra_${i}`, `Extra tool ${i}.`))];
    expect(catalog).toHaveLength(20);
    const offer = toolsForRequest({ catalog, conversation: "hello", usedOrFound: [] });
    expect(names(offer.tools)).toEqual(catalog.map((t) => t.name));
    expect(offer.searchTools).toBe(false);
    expect(new Set(offer.reasons.values())).toEqual(new Set(["all"]));
    // Unavailable tools are not counted nor offered.
    const withHidden = toolsForRequest({ catalog: [...catalog, tool("gone", "Gone.", { available: false })], conversation: "hello", usedOrFound: [] });
    expect(withHidden.tools).toHaveLength(20);
  });

  it("offers at most 16 of 1,000 tools: search_tools, then used or found (newest first), then ranked", () => {
    const catalog = largeCatalog();
    expect(catalog.length).toBeGreaterThanOrEqual(1000);
    const history: ChatMessage[] = [
      { role: "user", content: "refund the duplicate charge" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "stripe_create_refund", arguments: {} }] },
      { role: "tool", toolCallId: "c1", toolName: "stripe_create_refund", content: "{}" },
      { role: "assistant", content: "", toolCalls: [{ id: "c2", name: SEARCH_TOOLS, arguments: { query: "ticket" } }] },
      {
        role: "tool",
        toolCallId: "c2",
        toolName: SEARCH_TOOLS,
        content: JSON.stringify({ tools: [{ name: "zendesk_create_ticket" }, { name: "mcp_100_get_note" }] }),
      },
      { role: "assistant", content: "Refunded, and I found the ticket tool." },
      { role: "user", content: "now text the customer by SMS that it is done" },
    ];
    const found = usedOrFound(history);
    expect(found).toEqual(["zendesk_create_ticket", "mcp_100_get_note", "stripe_create_refund"]);
    const offer = toolsForRequest({ catalog, conversation: conversationSoFar(history), usedOrFound: found });
    expect(offer.tools.length).toBeLessThanOrEqual(MAX_OFFERED);
    expect(offer.tools).toHaveLength(MAX_OFFERED);
    expect(offer.searchTools).toBe(true);
    expect(offer.offered.slice(0, 4)).toEqual([
      { name: SEARCH_TOOLS, reason: "search_tools", score: null },
      expect.objectContaining({ name: "zendesk_create_ticket", reason: "used_or_found" }),
      expect.objectContaining({ name: "mcp_100_get_note", reason: "used_or_found" }),
      expect.objectContaining({ name: "stripe_create_refund", reason: "used_or_found" }),
    ]);
    const ranked = offer.offered.slice(4);
    expect(ranked.every((o) => o.reason === "ranked" && typeof o.score === "number")).toBe(true);
    expect(ranked[0]?.name).toBe("twilio_send_sms");
    expect(names(offer.tools)).not.toContain("hidden_tool");
    // Deterministic: the same input, the same list.
    expect(names(toolsForRequest({ catalog, conversation: conversationSoFar(history), usedOrFound: found }).tools)).toEqual(names(offer.tools));
  });

  it("ranks over the conversation so far: the job explained in one message, 'go ahead' in the next", () => {
    const catalog = largeCatalog();
    const history: ChatMessage[] = [
      { role: "user", content: "The customer in ticket 88 should get a text message on their phone saying the refund went through." },
      { role: "assistant", content: "I can send that SMS now. Shall I?" },
      { role: "user", content: "go ahead" },
    ];
    const offer = toolsForRequest({ catalog, conversation: conversationSoFar(history), usedOrFound: [] });
    expect(offer.reasons.get("twilio_send_sms")).toBe("ranked");
    // The last message alone says nothing.
    const lastOnly = toolsForRequest({ catalog, conversation: "go ahead", usedOrFound: [] });
    expect(names(lastOnly.tools)).toEqual([SEARCH_TOOLS]);
  });
});

describe("search_tools", () => {
  it("searches the whole catalog the turn may use, at most `limit` tools with their parameters", () => {
    const index = buildToolIndex(largeCatalog());
    const outcome = runSearchTools(index, { query: "send an SMS" });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.tools[0]).toEqual({
      name: "twilio_send_sms",
      title: "Send an SMS with Twilio",
      description: "Sends an SMS from a Twilio number.",
      platform: "twilio",
      parameters: ["to", "body"],
    });
    const five = runSearchTools(index, { query: "create a contact" });
    expect(five.ok && five.result.tools).toHaveLength(5);
    const ten = runSearchTools(index, { query: "create a contact", limit: 10 });
    expect(ten.ok && ten.result.tools).toHaveLength(10);
    // Unavailable tools are not in the index.
    const hidden = runSearchTools(index, { query: "nobody may use", limit: 10 });
    expect(hidden.ok && hidden.result.tools.map((t) => t.name)).not.toContain("hidden_tool");
    for (const bad of [{}, { query: "" }, { query: "x", limit: 11 }, { query: "x", limit: 0 }, { query: "x", extra: 1 }, "text"]) {
      expect(runSearchTools(index, bad).ok).toBe(false);
    }
  });

  it("offers what a search found in the next request of the turn", () => {
    const choice = catalogToolChoice({ catalog: largeCatalog(), conversation: "hello there", usedOrFound: [] });
    expect(names(choice.offer.next())).toEqual([SEARCH_TOOLS]);
    const outcome = choice.search({ query: "refund a payment", limit: 2 });
    expect(outcome.success).toBe(true);
    const found = (JSON.parse(outcome.content) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(found[0]).toBe("stripe_create_refund");
    expect(names(choice.offer.next()).slice(0, 1 + found.length)).toEqual([SEARCH_TOOLS, ...found]);
    expect(choice.lastOffer()?.reasons.get("stripe_create_refund")).toBe("used_or_found");
    // A tool the model called comes first next time.
    choice.offer.note(["slack_send_message"]);
    expect(names(choice.offer.next()).slice(0, 2)).toEqual([SEARCH_TOOLS, "slack_send_message"]);
    expect(choice.search({ query: 3 }).success).toBe(false);
  });
});

describe("POST /v1/conversations/{id}/explain-tools", () => {
  it("shows the set a request would carry and why, with the ranking for the message", async () => {
    const { key } = await newApiKey(await newUser());
    const id = (await json(await call("/v1/conversations", { token: key, json: {} }))).id;
    const explained = await json(await call(`/v1/conversations/${id}/explain-tools`, { token: key, json: { content: "generate a uuid for the new lead" } }));
    expect(explained.provider).toBe("local");
    expect(explained.tools[0]).toMatchObject({ name: "uuid_generate", reason: expect.stringContaining('"uuid" in name') });
    // A new account's catalog is its built-in tools: fewer than 20, all offered, no search_tools.
    expect(explained.search_tools).toBe(false);
    expect(explained.catalog_size).toBeLessThanOrEqual(20);
    expect(explained.offered).toHaveLength(explained.catalog_size);
    expect(explained.offered.every((o: { reason: string }) => o.reason === "all")).toBe(true);
    expect(explained.offered.map((o: { name: string }) => o.name)).toContain("uuid_generate");
  });
});
