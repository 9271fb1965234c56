import { Hono } from "hono";
import { deployAgent, listAgents, presentAgent, removeAgent, runAgentNow, scheduleAgent, setAgentStatus } from "../../agents/service";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import type { ScheduleConfig } from "../../agents/automation-agent";
import type { DeployValues } from "./agent-deploy";
import { messageOf, parseJsonObject, positiveIdOf, statusOf } from "../common";
import { loggableError } from "../../lib/safe-log";
import { flashWebhookSecret, takeWebhookSecret } from "./agent-flash";
import { previewOf, renderAgent, renderAgentNotFound, renderDeploy } from "./agent-render";
import { NO_SCHEDULE, parseSchedule, scheduleFieldsFromForm } from "./agent-schedule";
import { agentTriggerPages } from "./agent-trigger.routes";
import { agentEvalPages } from "./agent-evals.routes";
import { AgentsListPage } from "./agents-list";
import { type SignedIn, formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";

const MAX_NAME = 100;

/**
 * `/app/agents`: list, deploy (with a schedule previewed before it is saved), and one agent's
 * page with its controls, trigger and health (its events log and signing secret: agent-trigger.routes).
 * Everything goes through the agents service with the person's context, as the REST API does.
 */
export const agentsPages = new Hono<AppEnv>()
  .route("/", agentTriggerPages)
  .route("/", agentEvalPages)
  .get("/app/agents", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const rows = await listAgents(signedIn.ctx);
    const agents = rows.map((row) => presentAgent(row.agent, row.workflowName, row.triggerConfig, new URL(c.req.url).origin));
    return page(c, <AgentsListPage email={signedIn.email} csrf={signedIn.csrf} agents={agents} />);
  })
  .get("/app/agents/new", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderDeploy(c, signedIn, { name: "", workflowId: (c.req.query("workflow_id") ?? "").slice(0, 20), schedule: NO_SCHEDULE });
  })
  .post("/app/agents/new", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const values: DeployValues = {
      name: (str(form.name) ?? "").trim().slice(0, 200),
      workflowId: (str(form.workflow_id) ?? "").trim().slice(0, 20),
      schedule: scheduleFieldsFromForm(form),
    };
    const parsed = parseSchedule(values.schedule, signedIn.ctx.config.quotas.minIntervalSeconds);
    const step = str(form.step);
    if (step === "preview") return renderDeploy(c, signedIn, values, { preview: previewOf(parsed) }, parsed.ok ? 200 : 422);
    if (step !== "deploy") return renderError(c, "Unknown form action.", 400);
    if (!values.name || values.name.length > MAX_NAME)
      return renderDeploy(c, signedIn, values, { error: `Give the agent a name (at most ${MAX_NAME} characters).` }, 422);
    const workflowId = positiveIdOf(values.workflowId);
    if (!workflowId) return renderDeploy(c, signedIn, values, { error: "Choose one of your workflows." }, 422);
    // The schedule is checked before anything is created, so a wrong one deploys nothing.
    if (!parsed.ok) return renderDeploy(c, signedIn, values, { preview: previewOf(parsed) }, 422);
    let deployed: Awaited<ReturnType<typeof deployAgent>>;
    try {
      deployed = await deployAgent(signedIn.ctx, { workflowId, config: { name: values.name } });
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const message = error.code === "not_found" ? "Choose one of your workflows." : messageOf(error);
      return renderDeploy(c, signedIn, values, { error: message }, error.code === "not_found" ? 422 : statusOf(error));
    }
    const { agent, webhookSecret } = deployed;
    const scheduleError = parsed.config ? await scheduleAfterDeploy(signedIn, agent.id, parsed.config) : undefined;
    // Post/redirect/get to the agent's own address, which shows the secret once (and, should the
    // schedule have failed after all, why), so a reload never deploys a second agent.
    await flashWebhookSecret(c, signedIn.ctx, agent.id, { secret: webhookSecret, ...(scheduleError ? { scheduleError } : {}) });
    return c.redirect(`/app/agents/${agent.id}`, 303);
  })
  .get("/app/agents/:agent_id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const agentId = c.req.param("agent_id");
    const started = c.req.query("started");
    const flash = await takeWebhookSecret(c, signedIn.ctx, agentId);
    return renderAgent(c, signedIn, agentId, {
      ...(started ? { started } : {}),
      ...(c.req.query("secret") === "saved" ? { secretSaved: true } : {}),
      ...(flash && "alreadyShown" in flash ? { webhookSecretShown: true } : {}),
      ...(flash && "secret" in flash ? { webhookSecret: flash.secret } : {}),
      ...(flash && "scheduleError" in flash ? { error: flash.scheduleError } : {}),
    });
  })
  .post("/app/agents/:agent_id", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const agentId = c.req.param("agent_id") ?? "";
    try {
      return await agentAction(c, signedIn, agentId, form);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderAgentNotFound(c, signedIn);
      return renderAgent(c, signedIn, agentId, { error: messageOf(error) }, statusOf(error));
    }
  });

type Form = Record<string, string | File | (string | File)[]>;

/** One button of the agent page; service refusals are thrown and shown on the page by the caller. */
async function agentAction(c: Parameters<typeof renderAgent>[0], signedIn: SignedIn, agentId: string, form: Form) {
  const { ctx } = signedIn;
  const back = `/app/agents/${encodeURIComponent(agentId)}`;
  const step = str(form.step);
  if (step === "preview" || step === "schedule") {
    const scheduleFields = scheduleFieldsFromForm(form);
    const parsed = parseSchedule(scheduleFields, ctx.config.quotas.minIntervalSeconds);
    if (step === "preview" || !parsed.ok) return renderAgent(c, signedIn, agentId, { scheduleFields, preview: previewOf(parsed) }, parsed.ok ? 200 : 422);
    await scheduleAgent(ctx, agentId, parsed.config);
    return c.redirect(back, 303);
  }
  if (step === "pause" || step === "resume") {
    await setAgentStatus(ctx, agentId, step === "pause" ? "paused" : "active");
    return c.redirect(back, 303);
  }
  if (step === "run") {
    const typed = str(form.input) ?? "";
    // The body of POST /v1/agents/{id}/execute is the input itself: it sits at depth 0.
    const input = parseJsonObject(typed, "The run input", '{"email": "ada@example.com"}', { depthInBody: 0 });
    if (!input.ok) return renderAgent(c, signedIn, agentId, { runInput: typed, error: input.message }, 422);
    try {
      const { execution } = await runAgentNow(ctx, agentId, input.value);
      return c.redirect(`${back}?started=${encodeURIComponent(execution.id)}`, 303);
    } catch (error) {
      // A refused run (paused, over a quota) comes back with the input as typed.
      if (!(error instanceof HubError) || error.code === "not_found") throw error;
      return renderAgent(c, signedIn, agentId, { runInput: typed, error: messageOf(error) }, statusOf(error));
    }
  }
  if (step === "delete") {
    await removeAgent(ctx, agentId);
    return c.redirect("/app/agents", 303);
  }
  return renderError(c, "Unknown form action.", 400);
}

/**
 * Sets the schedule of an agent just deployed. The schedule was checked before deploying, so this
 * should not fail; if it does, the agent exists and its secret must still be shown once, so the
 * failure is returned to show on the agent's page rather than thrown.
 */
async function scheduleAfterDeploy(signedIn: SignedIn, agentId: string, config: ScheduleConfig): Promise<string | undefined> {
  try {
    await scheduleAgent(signedIn.ctx, agentId, config);
    return undefined;
  } catch (error) {
    const reason = error instanceof HubError ? messageOf(error) : "the scheduler could not be reached.";
    if (!(error instanceof HubError))
      console.error(JSON.stringify({ level: "error", message: "schedule after deploy failed", agent_id: agentId, error: loggableError(error) }));
    // Kept short: it travels in the flash cookie with the secret.
    return `The agent was deployed, but its schedule was not set: ${reason.slice(0, 240)} Set it again below.`;
  }
}
