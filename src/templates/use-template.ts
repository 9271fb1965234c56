import type { ServiceContext } from "../core/context";
import type { Agent, Template, Workflow } from "../db/schema";
import { deployAgent } from "../agents/service";
import { validateSteps } from "../workflows/steps";
import { checkedTrigger } from "../workflows/triggers";
import { HubError } from "../core/errors";
import { createWorkflow, type WorkflowInput } from "../workflows/service";
import { countUse, damagedTemplate, getTemplate } from "./service";
import { storedValueProblem } from "./stored-values";
import { bindConnections, connectionsFor, platformsOf } from "./bind-connections";

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The workflow a template becomes for the user who uses it (variables take their defaults).
 * A stored template that could not run (steps cut short, no longer valid, or not a list)
 * is refused with 409 naming what is wrong, before anything is created.
 */
export function workflowFromTemplate(template: Template, minIntervalSeconds = 1): WorkflowInput {
  const steps: unknown = template.steps;
  if (!Array.isArray(steps)) throw damagedTemplate("its steps are not a list");
  const problem = storedValueProblem(steps) ?? storedValueProblem(template.variables);
  if (problem === "truncated") throw damagedTemplate("it holds values that were stored truncated");
  if (problem === "too_deep") throw damagedTemplate("its steps nest too deeply");
  const { errors } = validateSteps(steps);
  if (errors.length) throw damagedTemplate("its steps are not valid", errors);
  const trigger = triggerOf(template, minIntervalSeconds);

  const specs = Object.entries(isRecord(template.variables) ? template.variables : {}).map(([name, spec]) => {
    // Catalog variables are {default, description}; anything else is taken as the default itself.
    const described = isRecord(spec) && "default" in spec;
    return { name, value: described ? spec.default : spec, description: described && typeof spec.description === "string" ? spec.description : "" };
  });
  return {
    name: template.name,
    description: template.description,
    steps,
    triggerType: trigger.type,
    triggerConfig: trigger.config,
    variables: Object.fromEntries(specs.map((spec) => [spec.name, spec.value])),
    metadata: {
      template_id: template.id,
      required_connections: template.requiredConnections,
      variable_descriptions: Object.fromEntries(specs.map((spec) => [spec.name, spec.description])),
    },
  };
}

function triggerOf(template: Template, minIntervalSeconds: number) {
  try {
    return checkedTrigger(template.triggerType, isRecord(template.triggerConfig) ? template.triggerConfig : {}, minIntervalSeconds);
  } catch (error) {
    if (error instanceof HubError) throw damagedTemplate("its trigger is not valid", error.errors);
    throw error;
  }
}

/**
 * A catalog variable whose default is null has no value that could work for everyone (a
 * channel id, an audience id): the person must give one at `use`, or the workflow would fail
 * on its first run. Refused with 422 naming each, before anything is created.
 */
function refuseMissingRequired(template: Template, values: Record<string, unknown>): void {
  const declared = isRecord(template.variables) ? template.variables : {};
  const missing = Object.entries(declared).filter(
    ([name, spec]) => isRecord(spec) && "default" in spec && spec.default === null && (values[name] ?? "") === "",
  );
  if (missing.length === 0) return;
  const names = missing.map(([name]) => name);
  throw new HubError("validation_failed", `The template needs a value for ${names.join(", ")}: give it in \`variables\`.`, {
    errors: missing.map(([name, spec]) => ({
      location: "body",
      field: `variables.${name}`,
      message: `Required${isRecord(spec) && typeof spec.description === "string" && spec.description ? `: ${spec.description}` : ""}.`,
    })),
  });
}

/** What a person may say when using a template (`POST /v1/templates/{id}/use`). */
export interface UseOptions {
  name?: string;
  /** Values for the template's variables (others keep their defaults). */
  variables?: Record<string, unknown>;
  /** The connection each platform's steps use, by platform id. */
  connections?: Record<string, number>;
  /** Deploy the new workflow as an agent, its trigger armed, in the same call. */
  deploy?: boolean;
}

/**
 * Creates the caller's workflow from a template (within their quota) and counts the use. With
 * `connections` or `deploy`, every platform the template calls must have a connection of the
 * caller (named, or their own of that platform), and its steps are bound to it: an automation
 * deployed from a template runs on the person's accounts or is refused before anything is made.
 */
export async function useTemplate(
  ctx: ServiceContext,
  templateId: string,
  options: UseOptions = {},
): Promise<{ template: Template; workflow: Workflow; deployed?: { agent: Agent; webhookSecret: string } }> {
  // Deploying runs things on the person's behalf, as POST /v1/agents/deploy does.
  if (options.deploy && !ctx.scopes.includes("workflow:execute")) {
    throw new HubError("insufficient_scope", 'Deploying needs the scope "workflow:execute", which the credential lacks.', {
      challenge: 'Bearer error="insufficient_scope", scope="workflow:execute"',
    });
  }
  const template = await getTemplate(ctx.db, templateId);
  const input = workflowFromTemplate(template, ctx.config.quotas.minIntervalSeconds);
  if (options.name) input.name = options.name;
  if (options.variables) input.variables = { ...input.variables, ...options.variables };
  refuseMissingRequired(template, input.variables ?? {});
  if (options.connections || options.deploy) {
    input.steps = bindConnections(input.steps, await connectionsFor(ctx, platformsOf(input.steps), options.connections ?? {}));
  }
  const workflow = await createWorkflow(ctx, input);
  await countUse(ctx.db, template, ctx.workspace.id);
  if (!options.deploy) return { template, workflow };
  return { template, workflow, deployed: await deployAgent(ctx, { workflowId: workflow.id, config: {} }) };
}
