import { resultOf } from "../items";
import type { NodeContext, NodeResult } from "../types";

/**
 * Nodes of platforms the hub connects to → a step of the hub's tool for that operation (the
 * tools of src/connections/platforms). The step uses the caller's connection to the platform (the
 * most recent active one); n8n credentials are never taken over.
 */
type PlatformMapper = (ctx: NodeContext, p: Record<string, unknown>) => { tool: string; arguments: Record<string, unknown> } | string;

/** A resource locator (`{__rl: true, value, mode, cachedResultName}`) or a plain value. */
const locator = (raw: unknown): { value: unknown; mode?: string; name?: string } =>
  raw && typeof raw === "object" && "value" in raw
    ? { value: (raw as { value: unknown }).value, mode: (raw as { mode?: string }).mode, name: (raw as { cachedResultName?: string }).cachedResultName }
    : { value: raw };

const operationOf = (p: Record<string, unknown>, resource: string, operation: string) =>
  `${String(p.resource ?? resource)}/${String(p.operation ?? operation)}`;

const slack: PlatformMapper = (ctx, p) => {
  if (operationOf(p, "message", "post") !== "message/post") return "Only posting a message maps to a hub Slack tool.";
  const target = locator(p.select === "user" ? p.user : (p.channelId ?? p.channel));
  let channel = ctx.value(target.value);
  const bareName = target.mode === "name" && typeof channel === "string" && !/^[#{]/.test(channel);
  if (bareName) channel = `#${channel}`;
  const thread = (p.otherOptions as { thread_ts?: { replyValues?: { thread_ts?: unknown } } })?.thread_ts?.replyValues?.thread_ts;
  return {
    tool: "slack_send_message",
    arguments: { channel, text: ctx.value(p.text ?? ""), ...(thread !== undefined ? { thread_ts: ctx.value(thread) } : {}) },
  };
};

/** The spreadsheet id of a Document locator (an id, or its URL). */
function spreadsheetId(ctx: NodeContext, raw: unknown): unknown {
  const { value } = locator(raw);
  const match = typeof value === "string" ? /\/spreadsheets\/d\/([A-Za-z0-9_-]+)/.exec(value) : null;
  return match ? match[1] : ctx.value(value);
}

/** The sheet's name: n8n keeps "gid=0" with the name beside it when picked from the list. */
function sheetName(ctx: NodeContext, raw: unknown): unknown {
  const sheet = locator(raw);
  if (sheet.mode === "name") return ctx.value(sheet.value);
  if (sheet.name) return sheet.name;
  ctx.warn("The sheet is named by id only: the first sheet (Sheet1) is used; set the range to the sheet's name.");
  return "Sheet1";
}

const googleSheets: PlatformMapper = (ctx, p) => {
  const operation = String(p.operation ?? "read");
  const spreadsheet_id = spreadsheetId(ctx, p.documentId);
  const range = sheetName(ctx, p.sheetName);
  if (operation === "read") {
    ctx.warn("The hub lists rows newest first; n8n reads them top down, one item each: later nodes read the first row the hub lists.");
    return { tool: "google_sheets_list_rows", arguments: { spreadsheet_id, range } };
  }
  if (operation !== "append") return `The "${operation}" operation has no hub Google Sheets tool (append and read do).`;
  const columns = (p.columns ?? {}) as { mappingMode?: string; value?: Record<string, unknown>; schema?: { id: string; removed?: boolean }[] };
  const names = (columns.schema ?? []).filter((c) => !c.removed).map((c) => c.id);
  const order = names.length ? names : Object.keys(columns.value ?? {});
  if (!order.length) return "Its columns are not listed in the export, so the row cannot be built.";
  const row =
    columns.mappingMode === "autoMapInputData"
      ? order.map((name) => ctx.value(`={{ $json[${JSON.stringify(name)}] }}`))
      : order.map((name) => (columns.value && Object.hasOwn(columns.value, name) ? ctx.value(columns.value[name]) : null));
  return { tool: "google_sheets_append_rows", arguments: { spreadsheet_id, range, rows: [row] } };
};

const gmail: PlatformMapper = (ctx, p) => {
  if (operationOf(p, "message", "send") !== "message/send") return "Only sending a message maps to a hub Gmail tool.";
  const to = typeof p.sendTo === "string" && !p.sendTo.startsWith("=") ? p.sendTo.split(",").map((a) => a.trim()) : [ctx.value(p.sendTo)];
  const body = p.emailType === "html" ? "html" : "text";
  return { tool: "gmail_send_email", arguments: { to, subject: ctx.value(p.subject ?? ""), [body]: ctx.value(p.message ?? "") } };
};

const telegram: PlatformMapper = (ctx, p) => {
  if (operationOf(p, "message", "sendMessage") !== "message/sendMessage") return "Only sending a text message maps to a hub Telegram tool.";
  const parseMode = (p.additionalFields as { parse_mode?: string })?.parse_mode;
  return {
    tool: "telegram_send_message",
    arguments: {
      chat_id: ctx.value(p.chatId),
      text: ctx.value(p.text ?? ""),
      ...(parseMode === "HTML" || parseMode === "MarkdownV2" ? { parse_mode: parseMode } : {}),
    },
  };
};

const discord: PlatformMapper = (ctx, p) => {
  if ((ctx.node.typeVersion ?? 1) < 2) {
    // Discord v1 posts to a webhook URL.
    return { tool: "http_request", arguments: { url: ctx.value(p.webhookUri ?? ""), method: "POST", body: { content: ctx.value(p.text ?? "") } } };
  }
  if (operationOf(p, "message", "send") !== "message/send") return "Only sending a message maps to a hub Discord tool.";
  return { tool: "discord_send_message", arguments: { channel_id: ctx.value(locator(p.channelId).value), content: ctx.value(p.content ?? "") } };
};

const hubspot: PlatformMapper = (ctx, p) => {
  if (operationOf(p, "deal", "create") !== "contact/upsert") return "Only creating or updating a contact maps to a hub HubSpot tool.";
  const extra = (p.additionalFields ?? {}) as Record<string, unknown>;
  const names: Record<string, string> = {
    firstName: "firstname",
    lastName: "lastname",
    companyName: "company",
    phoneNumber: "phone",
    lifeCycleStage: "lifecyclestage",
  };
  const fields = Object.fromEntries(Object.entries(names).flatMap(([from, to]) => (extra[from] !== undefined ? [[to, ctx.value(extra[from])]] : [])));
  return { tool: "hubspot_create_contact", arguments: { email: ctx.value(p.email), ...fields } };
};

const airtable: PlatformMapper = (ctx, p) => {
  const base_id = ctx.value(locator(p.base).value);
  const table = ctx.value(locator(p.table).value);
  const operation = String(p.operation ?? "read");
  if (operation === "create")
    return { tool: "airtable_create_record", arguments: { base_id, table, fields: ctx.value((p.columns as { value?: unknown })?.value ?? {}) } };
  if (operation === "search") {
    const formula = p.filterByFormula;
    return { tool: "airtable_list_records", arguments: { base_id, table, ...(formula ? { filter_by_formula: ctx.value(formula) } : {}) } };
  }
  return `The "${operation}" operation has no hub Airtable tool (create and search do).`;
};

const notion: PlatformMapper = (ctx, p) => {
  if (operationOf(p, "page", "create") !== "databasePage/create") return "Only adding a page to a database maps to a hub Notion tool.";
  if ((p.propertiesUi as { propertyValues?: unknown[] })?.propertyValues?.length) ctx.warn("Its page properties other than the title are not taken over.");
  return { tool: "notion_create_page", arguments: { database_id: ctx.value(locator(p.databaseId).value), title: ctx.value(p.title ?? "") } };
};

export const PLATFORM_NODES: Record<string, PlatformMapper> = {
  "n8n-nodes-base.slack": slack,
  "n8n-nodes-base.googleSheets": googleSheets,
  "n8n-nodes-base.gmail": gmail,
  "n8n-nodes-base.telegram": telegram,
  "n8n-nodes-base.discord": discord,
  "n8n-nodes-base.hubspot": hubspot,
  "n8n-nodes-base.airtable": airtable,
  "n8n-nodes-base.notion": notion,
};

/** A platform node as a tool step, or null (with the reason as a warning) when its operation has no hub tool. */
export function platformNode(ctx: NodeContext): NodeResult | null {
  const mapped = PLATFORM_NODES[ctx.node.type]!(ctx, ctx.node.parameters ?? {});
  if (typeof mapped === "string") {
    ctx.warn(mapped);
    return null;
  }
  return { steps: [{ id: ctx.stepId, type: "tool", name: ctx.node.name, tool: mapped.tool, arguments: mapped.arguments }], output: [resultOf(ctx.stepId)] };
}
