import { Hono } from "hono";
import { listAgentEvents } from "../../agents/events";
import { getOwnedAgent, setProviderSecret } from "../../agents/service";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { getOwnedWorkflow } from "../../workflows/service";
import { messageOf, statusOf } from "../common";
import { formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { AgentEventsPage } from "./agent-events";
import { renderAgent, renderAgentNotFound } from "./agent-render";
import { SIGNING_SECRET_MAX, SIGNING_SECRET_MIN } from "./agent-webhook";
import { agentName } from "./agents-list";

/** Events per page of the log: enough to scan, few enough to stay light on a phone. */
const EVENTS_PER_PAGE = 50;
/** The REST API's bound on `?cursor=`. */
const MAX_CURSOR = 200;

/**
 * The agent's trigger pages: its events log (`/app/agents/<id>/events`, paged by the service's
 * cursor) and "Set signing secret" (through setProviderSecret, as PUT /v1/agents/{id}/webhook-secret).
 */
export const agentTriggerPages = new Hono<AppEnv>()
  .get("/app/agents/:agent_id/events", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const { ctx } = signedIn;
    const agentId = c.req.param("agent_id");
    const cursor = c.req.query("cursor");
    if (cursor !== undefined && (!cursor || cursor.length > MAX_CURSOR)) return renderError(c, "That page of the events log does not exist.", 400);
    let listed: Awaited<ReturnType<typeof listAgentEvents>>;
    let name: string;
    try {
      // The service checks the agent is the person's before reading its events.
      listed = await listAgentEvents(ctx, agentId, { limit: EVENTS_PER_PAGE, cursor });
      const agent = await getOwnedAgent(ctx, agentId);
      const workflow = await getOwnedWorkflow(ctx, agent.workflowId);
      name = agentName({ agent_config: agent.config, workflow_name: workflow.name });
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderAgentNotFound(c, signedIn);
      // A cursor that is not one of ours: say so rather than show an empty log.
      return renderError(c, "That page of the events log does not exist.", 400);
    }
    return page(
      c,
      <AgentEventsPage
        email={signedIn.email}
        csrf={signedIn.csrf}
        agentId={agentId}
        name={name}
        events={listed.data}
        nextCursor={listed.next_cursor}
        paged={cursor !== undefined}
      />,
    );
  })
  .post("/app/agents/:agent_id/webhook-secret", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const agentId = c.req.param("agent_id") ?? "";
    if (str(form.step) !== "set_secret") return renderError(c, "Unknown form action.", 400);
    // Spaces around a pasted secret are never part of it; the secret itself is never shown back.
    const secret = (str(form.secret) ?? "").trim();
    if (secret.length < SIGNING_SECRET_MIN || secret.length > SIGNING_SECRET_MAX) {
      const secretError = `The signing secret must be ${SIGNING_SECRET_MIN} to ${SIGNING_SECRET_MAX} characters long; the one given had ${secret.length}.`;
      return renderAgent(c, signedIn, agentId, { secretError }, 422);
    }
    try {
      await setProviderSecret(signedIn.ctx, agentId, secret);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderAgentNotFound(c, signedIn);
      return renderAgent(c, signedIn, agentId, { secretError: messageOf(error) }, statusOf(error));
    }
    return c.redirect(`/app/agents/${encodeURIComponent(agentId)}?secret=saved`, 303);
  });
