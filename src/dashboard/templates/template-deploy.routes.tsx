import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { findPlatform } from "../../connections/platforms";
import { allConnections } from "../../connections/service";
import { HubError } from "../../core/errors";
import type { Template } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { getTemplate } from "../../templates/service";
import { useTemplate } from "../../templates/use-template";
import { flashWebhookSecret } from "../agents/agent-flash";
import { type RefusalStatus, messageOf, renderNotFound, statusOf } from "../common";
import { type SignedIn, largeFormGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { ErrorNote, Page } from "../layout";
import { type ConnectionChoice, type TemplateFormMode, type UseAndDeployProps, UseAndDeployPage } from "./template-deploy";
import { type DeployPlan, connectionInput, deployPlanOf, readDeployForm } from "./template-deploy-values";

const MAX_TEMPLATE_ID = 100;
/** The REST API's bound on a workflow's name. */
const MAX_NAME = 200;

type Status = 200 | RefusalStatus;
type Loaded = { template: Template; plan: DeployPlan } | { response: Response | Promise<Response> };

/**
 * `/app/templates/<id>/use` ("Use") and `/app/templates/<id>/deploy` ("Use and deploy"): the form
 * asks for the connection of each platform the steps call and for the variables, then posts them
 * to useTemplate as POST /v1/templates/{id}/use does (with `deploy: true` for the second). A new
 * agent's secret crosses the redirect in the same one-time flash as a deploy from the agents page.
 */
export const templateDeployPages = new Hono<AppEnv>()
  .get("/app/templates/:template_id/:mode{use|deploy}", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const loaded = await loadTemplate(c, signedIn, c.req.param("template_id"));
    if ("response" in loaded) return loaded.response;
    return renderTemplateForm(c, signedIn, loaded, modeOf(c.req.param("mode")), { name: "", values: {}, errors: {} });
  })
  .post("/app/templates/:template_id/:mode{use|deploy}", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const mode = modeOf(c.req.param("mode"));
    if (str(form.step) !== mode) return renderError(c, "Unknown form action.", 400);
    const loaded = await loadTemplate(c, signedIn, c.req.param("template_id") ?? "");
    if ("response" in loaded) return loaded.response;
    const read = readDeployForm(loaded.plan, form);
    const shown = { name: read.name.slice(0, MAX_NAME), values: read.values };
    const errors = { ...read.errors };
    if (read.name.length > MAX_NAME) errors.name = `At most ${MAX_NAME} characters.`;
    if (Object.keys(errors).length) return renderTemplateForm(c, signedIn, loaded, mode, { ...shown, errors, error: summaryOf(errors) }, 422);
    let used: Awaited<ReturnType<typeof useTemplate>>;
    try {
      const connections = mode === "deploy" || (await canBindAll(signedIn, loaded.plan)) ? { connections: read.connections } : {};
      const options = { ...(read.name ? { name: read.name } : {}), variables: read.variables, ...connections, deploy: mode === "deploy" };
      used = await useTemplate(signedIn.ctx, loaded.template.id, options);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const placed = placedErrors(loaded.plan, error);
      return renderTemplateForm(c, signedIn, loaded, mode, { ...shown, errors: placed, error: messageOf(error) }, statusOf(error));
    }
    if (mode === "use") return c.redirect(`/app/workflows/${used.workflow.id}`, 303);
    const { deployed } = used;
    if (!deployed) throw new Error("useTemplate did not deploy");
    // Post/redirect/get to the agent's page, which shows the secret once, as a deploy from /app/agents/new does.
    await flashWebhookSecret(c, signedIn.ctx, deployed.agent.id, { secret: deployed.webhookSecret });
    return c.redirect(`/app/agents/${deployed.agent.id}`, 303);
  });

const modeOf = (mode: string | undefined): TemplateFormMode => (mode === "deploy" ? "deploy" : "use");

/**
 * "Use" only copies: a platform the person has not connected yet does not stop it. The steps are
 * then copied unbound (each picks the person's connection when it runs), since binding some
 * platforms and not others is not something useTemplate does.
 */
async function canBindAll(signedIn: SignedIn, plan: DeployPlan): Promise<boolean> {
  if (plan.platforms.length === 0) return true;
  const connected = new Set((await allConnections(signedIn.ctx)).map((row) => row.platform));
  return plan.platforms.every((platform) => connected.has(platform));
}

/** The template and what its form asks for, or the page that says why there is none (404, or 409 when damaged). */
async function loadTemplate(c: Context<AppEnv>, signedIn: SignedIn, id: string): Promise<Loaded> {
  const notFound = () => ({
    response: renderNotFound(c, signedIn, "There is no template with this id.", { href: "/app/templates", label: "Back to templates" }),
  });
  if (!id || id.length > MAX_TEMPLATE_ID) return notFound();
  try {
    const template = await getTemplate(signedIn.ctx.db, id);
    return { template, plan: deployPlanOf(template, signedIn.ctx.config.quotas.minIntervalSeconds) };
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    if (error.code === "not_found") return notFound();
    const csrf = await csrfToken(c, signedIn.ctx.actor.id);
    return { response: page(c, <RefusedPage email={signedIn.email} csrf={csrf} message={messageOf(error)} />, statusOf(error)) };
  }
}

function RefusedPage(props: { email: string; csrf: string; message: string }) {
  return (
    <Page title="This template cannot be used" email={props.email} csrf={props.csrf}>
      <h1>This template cannot be used</h1>
      <ErrorNote message={props.message} />
      <p>
        <a href="/app/templates">Back to templates</a>
      </p>
    </Page>
  );
}

/** The service names a connection problem `connections.<platform>`: it goes to that platform's field. */
function placedErrors(plan: DeployPlan, error: HubError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const problem of error.errors ?? []) {
    const platform = problem.field.replace(/^connections\./, "");
    if (problem.field.startsWith("connections.") && plan.platforms.includes(platform)) errors[connectionInput(platform)] = problem.message;
  }
  return errors;
}

const summaryOf = (errors: Record<string, string>) =>
  Object.keys(errors).length === 1 ? "One field needs attention; see below." : `${Object.keys(errors).length} fields need attention; see below.`;

async function renderTemplateForm(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  loaded: { template: Template; plan: DeployPlan },
  mode: TemplateFormMode,
  form: Pick<UseAndDeployProps, "name" | "values" | "errors" | "error">,
  status: Status = 200,
) {
  const { template, plan } = loaded;
  // Every connection of the person (bounded by their quota), grouped by the platforms the form asks for.
  const mine = await allConnections(signedIn.ctx);
  const choices: UseAndDeployProps["choices"] = {};
  for (const platform of plan.platforms) {
    const connections: ConnectionChoice[] = mine.filter((row) => row.platform === platform).map((row) => ({ id: row.id, name: row.name, status: row.status }));
    choices[platform] = { label: findPlatform(platform)?.name ?? platform, connections };
  }
  return page(
    c,
    <UseAndDeployPage
      mode={mode}
      email={signedIn.email}
      csrf={await csrfToken(c, signedIn.ctx.actor.id)}
      template={{ id: template.id, name: template.name, description: template.description, triggerType: template.triggerType }}
      plan={plan}
      choices={choices}
      {...form}
    />,
    status,
  );
}
