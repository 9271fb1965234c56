import { Hono } from "hono";
import { agentName } from "./agents-list";
import { presentOwnedAgent } from "../../agents/service";
import { HubError } from "../../core/errors";
import { EvalRequestSchema } from "../../evals/schemas";
import { runEval } from "../../evals/service";
import type { AppEnv } from "../../http/app-env";
import { messageOf, parseJsonField, renderNotFound, statusOf } from "../common";
import { type SignedIn, largeFormGuard, page, signedInForm, signedInPage, str } from "../kit";
import { AgentEvalsPage, EVAL_EXAMPLE } from "./agent-evals";

const NOT_FOUND = { message: "No such agent.", back: { href: "/app/agents", label: "Back to agents" } };

/** `/app/agents/{id}/evals`: run an eval of the agent from its page (the same service as POST /v1/agents/{id}/evals). */
export const agentEvalPages = new Hono<AppEnv>()
  .get("/app/agents/:agent_id/evals", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const agent = await ownedAgent(signedIn, c.req.param("agent_id"), new URL(c.req.url).origin);
    if (!agent) return renderNotFound(c, signedIn, NOT_FOUND.message, NOT_FOUND.back);
    return page(c, <AgentEvalsPage email={signedIn.email} csrf={signedIn.csrf} agentId={agent.agent_id} agentName={agentName(agent)} cases={EVAL_EXAMPLE} />);
  })
  .post("/app/agents/:agent_id/evals", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const signedIn = { ...posted.signedIn, csrf: str(posted.form.csrf_token) ?? "" };
    const agent = await ownedAgent(signedIn, c.req.param("agent_id"), new URL(c.req.url).origin);
    if (!agent) return renderNotFound(c, signedIn, NOT_FOUND.message, NOT_FOUND.back);
    const text = str(posted.form.cases) ?? "";
    const show = (status: 200 | 201 | 409 | 422 | 429 | 400 | 403 | 404 | 413, extra: { error?: string; result?: Awaited<ReturnType<typeof runEval>> }) =>
      page(
        c,
        <AgentEvalsPage email={signedIn.email} csrf={signedIn.csrf} agentId={agent.agent_id} agentName={agentName(agent)} cases={text} {...extra} />,
        status,
      );
    const parsed = parseJsonField(text, "The cases");
    if (!parsed.ok) return show(422, { error: parsed.message });
    const request = EvalRequestSchema.safeParse(parsed.value);
    if (!request.success) {
      const issue = request.error.issues[0]!;
      return show(422, { error: `The cases are not valid at ${issue.path.join(".") || "the top"}: ${issue.message}` });
    }
    try {
      return show(201, { result: await runEval(signedIn.ctx, agent.agent_id, request.data.cases) });
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      return show(statusOf(error), { error: messageOf(error) });
    }
  });

async function ownedAgent(signedIn: SignedIn, id: string | undefined, origin: string) {
  try {
    return await presentOwnedAgent(signedIn.ctx, id ?? "", origin);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return undefined;
    throw error;
  }
}
