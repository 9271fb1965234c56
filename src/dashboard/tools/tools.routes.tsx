import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { availableTool, catalogFor } from "../../tools/catalog-service";
import { prepareToolCall } from "../../tools/executor";
import type { JsonSchema, ToolInfo } from "../../tools/types";
import { type RefusalStatus, renderNotFound, statusOf } from "../common";
import { type SignedIn, formGuard, page, signedInForm, signedInPage } from "../kit";
import { LIVE_SCRIPT_PATH, serveLiveScript } from "../live-script";
import type { FieldErrors, FormField } from "../forms/form-field";
import { initialValues } from "../forms/form-values";
import { placeErrors } from "../forms/place-errors";
import { readForm } from "../forms/read-form";
import { schemaFields } from "../forms/schema-fields";
import { ToolsListPage, searchTools } from "./tools-list";
import { ToolPage, type ToolPageProps } from "./tools-page";
import { collectEventLines } from "./tools-stream";
import { runWithEvents, toolEventStream } from "../../tools/event-stream";

/**
 * `/app/tools`: the catalog with a search, and a page per tool whose form is built from its input
 * schema. Runs go through the executor as the REST API's do (tool-call limit, audit record); the
 * live run streams the same events as POST /v1/tools/execute/stream.
 */
export const toolsPages = new Hono<AppEnv>()
  .get(LIVE_SCRIPT_PATH, serveLiveScript)
  .get("/app/tools", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const query = (c.req.query("q") ?? "").trim().slice(0, 100);
    const tools = await catalogFor(signedIn.ctx);
    return page(c, <ToolsListPage email={signedIn.email} csrf={signedIn.csrf} tools={searchTools(tools, query)} query={query} total={tools.length} />);
  })
  .get("/app/tools/:name", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const name = c.req.param("name") ?? "";
    const tool = await findTool(signedIn.ctx, name);
    if (!tool) return toolNotFound(c, signedIn, name);
    const fields = argumentFields(tool.input_schema);
    return page(c, <ToolPage email={signedIn.email} csrf={signedIn.csrf} tool={tool} fields={fields} values={initialValues(fields)} />);
  })
  .post("/app/tools/:name", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const { ctx } = signedIn;
    const name = c.req.param("name") ?? "";
    const tool = await findTool(ctx, name);
    if (!tool) return toolNotFound(c, signedIn, name);
    const fields = argumentFields(tool.input_schema);
    const read = readForm(fields, form);
    const render = async (extra: Partial<ToolPageProps>, status: 200 | RefusalStatus) =>
      page(c, <ToolPage email={signedIn.email} csrf={await csrfToken(c, ctx.actor.id)} tool={tool} fields={fields} values={read.values} {...extra} />, status);
    if (Object.keys(read.errors).length) return render({ error: "Some arguments could not be read; see the fields below.", fieldErrors: read.errors }, 422);
    try {
      const { call } = await prepareToolCall(ctx, tool.name, read.value);
      // Only the first events are kept for the page; the rest are counted.
      const events = collectEventLines();
      const result = await runWithEvents(ctx, call, "dashboard", c.req.raw.signal, (event, data) => events.add({ event, data }));
      return render({ run: { result, events: events.lines } }, 200);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const refusal = refusalOf(error, fields);
      return render({ error: refusal.message, fieldErrors: refusal.fieldErrors }, statusOf(error));
    }
  })
  .post("/app/tools/:name/stream", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { ctx } = posted.signedIn;
    const tool = await findTool(ctx, c.req.param("name") ?? "");
    if (!tool) return c.json({ error: "You have no tool of that name." }, 404);
    const fields = argumentFields(tool.input_schema);
    const read = readForm(fields, posted.form);
    if (Object.keys(read.errors).length) return c.json({ error: "Some arguments could not be read.", errors: fieldList(fields, read.errors) }, 422);
    try {
      // Everything that can be refused is refused before the stream starts, as a plain answer.
      const { call } = await prepareToolCall(ctx, tool.name, read.value);
      return toolEventStream(c, ctx, call, "dashboard");
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const refusal = refusalOf(error, fields);
      return c.json({ error: refusal.message, errors: fieldList(fields, refusal.fieldErrors) }, statusOf(error));
    }
  });

/** No tool of that name among the person's: gone, or a connection's that needs attention. */
function toolNotFound(c: Context<AppEnv>, signedIn: SignedIn, name: string) {
  const message = `You have no tool named “${name.slice(0, 200)}”: it may belong to a connection that is gone or needs attention.`;
  return renderNotFound(c, signedIn, message, { href: "/app/tools", label: "Back to tools" });
}

/** The tool of that name the person can run now, read alone (not by building the whole catalog). */
function findTool(ctx: ServiceContext, name: string): Promise<ToolInfo | undefined> {
  return availableTool(ctx, name);
}

/**
 * A tool's input schema as form fields: named as the tool names them, strings that may run long
 * in a textarea and kept as typed; a schema of no (or very many) properties is one JSON field.
 */
const argumentFields = (schema: JsonSchema): FormField[] =>
  schemaFields(schema, {
    prefix: "arg",
    ids: "index",
    labels: "names",
    longText: true,
    whole: { input: "arguments", id: "arguments-json", label: "Arguments" },
  });

/** The service's refusal: each field error beside its field (`arguments.<name>…`), the rest in the message. */
function refusalOf(error: HubError, fields: FormField[]): { message: string; fieldErrors: FieldErrors } {
  const placed = placeErrors(fields, error.errors ?? [], "arguments");
  return { message: [error.message, ...placed.unplaced].join(" "), fieldErrors: placed.errors };
}

const fieldList = (fields: FormField[], errors: FieldErrors) =>
  Object.entries(errors).map(([input, message]) => ({ field: fields.find((f) => f.input === input)?.name ?? "", message }));
