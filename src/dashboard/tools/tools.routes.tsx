import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { catalogFor } from "../../tools/catalog-service";
import { prepareToolCall } from "../../tools/executor";
import type { ToolInfo } from "../../tools/types";
import { type RefusalStatus, renderNotFound, statusOf } from "../common";
import { type SignedIn, formGuard, page, signedInForm, signedInPage } from "../kit";
import { LIVE_SCRIPT_PATH, serveLiveScript } from "../live-script";
import { type ArgField, argumentsFrom, fieldsOf, initialValues, valuesFrom } from "./tools-args";
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
    const fields = fieldsOf(tool.input_schema);
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
    const fields = fieldsOf(tool.input_schema);
    const values = valuesFrom(fields, form);
    const render = async (extra: Partial<ToolPageProps>, status: 200 | RefusalStatus) =>
      page(c, <ToolPage email={signedIn.email} csrf={await csrfToken(c, ctx.user.id)} tool={tool} fields={fields} values={values} {...extra} />, status);
    const read = argumentsFrom(fields, values);
    if (!read.ok) return render({ error: "Some arguments could not be read; see the fields below.", fieldErrors: read.errors }, 422);
    try {
      const { call } = await prepareToolCall(ctx, tool.name, read.args);
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
    const fields = fieldsOf(tool.input_schema);
    const read = argumentsFrom(fields, valuesFrom(fields, posted.form));
    if (!read.ok) return c.json({ error: "Some arguments could not be read.", errors: fieldList(fields, read.errors) }, 422);
    try {
      // Everything that can be refused is refused before the stream starts, as a plain answer.
      const { call } = await prepareToolCall(ctx, tool.name, read.args);
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

async function findTool(ctx: ServiceContext, name: string): Promise<ToolInfo | undefined> {
  return (await catalogFor(ctx)).find((tool) => tool.name === name);
}

/** The service's refusal: each field error beside its field (`arguments.<name>…`), the rest in the message. */
function refusalOf(error: HubError, fields: ArgField[]): { message: string; fieldErrors: Record<string, string> } {
  const fieldErrors: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const problem of error.errors ?? []) {
    const path = problem.field.replace(/^arguments\.?/, "");
    const field = fields.find((f) => f.name !== "" && (path === f.name || path.startsWith(`${f.name}.`))) ?? fields.find((f) => f.name === "");
    const text = field && path !== field.name && field.name !== "" ? `${path}: ${problem.message}` : problem.message;
    if (field) fieldErrors[field.input] = fieldErrors[field.input] ? `${fieldErrors[field.input]} ${text}` : text;
    else unplaced.push(path ? `${path}: ${problem.message}` : problem.message);
  }
  return { message: [error.message, ...unplaced].join(" "), fieldErrors };
}

const fieldList = (fields: ArgField[], errors: Record<string, string>) =>
  Object.entries(errors).map(([input, message]) => ({ field: fields.find((f) => f.input === input)?.name ?? "", message }));
