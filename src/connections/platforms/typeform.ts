import { z } from "@hono/zod-openapi";
import { OffsetCursor, offsetCursor, offsetOf } from "./cursor";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

/** The page of forms a cursor names (the first without one). */
const pageOf = (cursor: string | undefined) => Math.max(1, offsetOf(cursor));

type TypeformConfig = { access_token: string; base_url?: string };

const FormId = z.string().regex(/^[A-Za-z0-9]{4,20}$/, "A form id, from its URL (…/to/<id>).");

/** Typeform's error reader: `{code, description, details?}` (developer.typeform.com/responses/reference: errors). */
function readTypeformError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.code !== "string") return undefined;
  return { message: text(body.description, 400) ?? body.code, code: text(body.code, 100), authFailure: status === 401 ? "error" : null };
}

/** One answer's value, whatever its type: text, email, number, boolean, date, url, a choice's label or several. */
function answerValue(answer: any): unknown {
  switch (answer?.type) {
    case "choice":
      return answer.choice?.label ?? answer.choice?.other ?? null;
    case "choices":
      return [...(answer.choices?.labels ?? []), ...(answer.choices?.other ? [answer.choices.other] : [])];
    default:
      return answer?.[answer?.type] ?? null;
  }
}

const response = (r: any) => ({
  id: r.response_id ?? r.token,
  submitted_at: r.submitted_at ?? null,
  landed_at: r.landed_at ?? null,
  // Keyed by the field's ref (set in the form builder), else its id.
  answers: Object.fromEntries((r.answers ?? []).map((a: any) => [a.field?.ref ?? a.field?.id, answerValue(a)])),
  hidden: r.hidden ?? {},
});

export const typeform = definePlatform<TypeformConfig>({
  id: "typeform",
  name: "Typeform",
  description: "Read forms and their responses in Typeform, newest first, with a personal access token.",
  category: "forms",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("A personal access token (tfp_…) with the forms:read and responses:read scopes."),
    base_url: baseUrlField.meta({ description: "Override the API's base URL: https://api.eu.typeform.com for EU data centre accounts, or a proxy." }),
  }),
  secretFields: ["access_token"],
  defaultBaseUrl: "https://api.typeform.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readTypeformError,
  async test(client) {
    const me = await client.request<{ alias?: string; email?: string }>({ method: "GET", path: "/me" });
    return `Connected as ${me.email ?? me.alias ?? "a Typeform account"}.`;
  },
  polls: [{ title: "New response", action: "list_responses", arguments: { form_id: "<form id>", limit: 25 }, items_path: "responses", id_path: "id" }],
  tools: [
    requestTool({
      action: "list_responses",
      effect: "read",
      title: "List a Typeform form's responses",
      description:
        "Lists a form's completed responses newest first (GET /forms/{form_id}/responses), each with its answers by field ref; ids are stable, so it drives a 'new response' poll trigger (items_path: responses, id_path: id).",
      input: z.object({
        form_id: FormId,
        limit: z.number().int().min(1).max(1000).default(25),
        cursor: z
          .string()
          .regex(/^[A-Za-z0-9]{1,100}$/)
          .optional()
          .describe("The previous page's next_cursor."),
        since: z.string().datetime().optional().describe("Only responses submitted after this time."),
      }),
      method: "GET",
      path: "/forms/{form_id}/responses",
      query: (args) => ({ page_size: args.limit, before: args.cursor, since: args.since, completed: true }),
      result: (a, args) => {
        const items = a.items ?? [];
        return {
          responses: items.map(response),
          total: a.total_items ?? null,
          // Typeform pages with `before`: the last response's token.
          next_cursor: items.length === args.limit && items.length ? (items[items.length - 1].token ?? null) : null,
        };
      },
    }),
    requestTool({
      action: "list_forms",
      effect: "read",
      title: "List Typeform forms",
      description: "Lists the account's forms (GET /forms), optionally matching a search, a page at a time: pass next_cursor as cursor (null: no more).",
      input: z.object({
        search: z.string().max(200).optional(),
        page_size: z.number().int().min(1).max(200).default(50),
        cursor: OffsetCursor.optional(),
      }),
      method: "GET",
      path: "/forms",
      // Typeform pages forms by number (page, page_size) and says how many pages there are: the
      // cursor carries the next page's number.
      query: (args) => ({ search: args.search, page: pageOf(args.cursor), page_size: args.page_size }),
      result: (a, args) => {
        const page = pageOf(args.cursor);
        return {
          forms: (a.items ?? []).map((f: any) => ({ id: f.id, title: f.title, last_updated_at: f.last_updated_at ?? null, url: f._links?.display ?? null })),
          next_cursor: page < (Number(a.page_count) || 1) ? offsetCursor(page + 1) : null,
        };
      },
    }),
    requestTool({
      action: "get_form",
      effect: "read",
      title: "Get a Typeform form's questions",
      description: "Reads a form's title and its fields (id, ref, type, title) (GET /forms/{form_id}), to map its answers.",
      input: z.object({ form_id: FormId }),
      method: "GET",
      path: "/forms/{form_id}",
      result: (f) => ({
        id: f.id,
        title: f.title,
        fields: (f.fields ?? []).map((field: any) => ({ id: field.id, ref: field.ref ?? null, type: field.type, title: field.title })),
      }),
    }),
  ],
});
