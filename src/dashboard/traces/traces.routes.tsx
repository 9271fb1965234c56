import type { Context } from "hono";
import { Hono } from "hono";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { executionTrace } from "../../traces/execution-trace";
import { type Span, presentTrace } from "../../traces/spans";
import { messageTrace } from "../../traces/store";
import { isExecutionId, positiveIdOf, renderNotFound } from "../common";
import { type SignedIn, page, signedInPage } from "../kit";
import { TracePage } from "./trace-page";

/**
 * `/app/executions/<id>/trace` and `/app/conversations/<id>/messages/<message_id>/trace`: a run's
 * or a turn's trace as a waterfall, through the same services as the API's trace routes.
 * Someone else's run or conversation, and a message without a trace, are the not-found page.
 */
export const tracesPages = new Hono<AppEnv>()
  .get("/app/executions/:id/trace", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const id = c.req.param("id");
    const back = { href: "/app/workflows", label: "Back to workflows" };
    const missing = "This execution does not exist, or it is not yours.";
    if (!isExecutionId(id)) return renderNotFound(c, signedIn, missing, back);
    return renderTrace(c, signedIn, () => executionTrace(signedIn.ctx, id), {
      title: `Trace of execution ${id}`,
      back: { href: `/app/executions/${id}`, label: "Back to the execution" },
      missing: { message: missing, back },
    });
  })
  .get("/app/conversations/:id/messages/:message/trace", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const conversation = positiveIdOf(c.req.param("id"));
    const message = positiveIdOf(c.req.param("message"));
    const back = { href: conversation ? `/app/conversations/${conversation}` : "/app/conversations", label: "Back to the conversation" };
    const missing = "No trace here: the conversation is not yours, or this message is not an answer with a trace.";
    if (!conversation || !message) return renderNotFound(c, signedIn, missing, back);
    return renderTrace(c, signedIn, () => messageTrace(signedIn.ctx, conversation, message), {
      title: `Trace of message ${message}`,
      back: { href: `/app/conversations/${conversation}#message-${message}`, label: "Back to the conversation" },
      missing: { message: missing, back },
    });
  });

async function renderTrace(
  c: Context<AppEnv>,
  signedIn: SignedIn & { csrf: string },
  read: () => Promise<Span[]>,
  view: { title: string; back: { href: string; label: string }; missing: { message: string; back: { href: string; label: string } } },
) {
  let spans: Span[];
  try {
    spans = await read();
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return renderNotFound(c, signedIn, view.missing.message, view.missing.back);
    throw error;
  }
  return page(c, <TracePage email={signedIn.email} csrf={signedIn.csrf} title={view.title} back={view.back} trace={presentTrace(spans)} />);
}
