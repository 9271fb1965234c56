import type { ServiceContext } from "../core/context";
import type { Template, Workflow } from "../db/schema";
import { validateSteps } from "../workflows/steps";
import { checkedTrigger } from "../workflows/triggers";
import { HubError } from "../core/errors";
import { createWorkflow, type WorkflowInput } from "../workflows/service";
import { countUse, damagedTemplate, getTemplate } from "./service";
import { storedValueProblem } from "./stored-values";

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

/** Creates the caller's workflow from a template (within their quota) and counts the use. */
export async function useTemplate(ctx: ServiceContext, templateId: string): Promise<{ template: Template; workflow: Workflow }> {
  const template = await getTemplate(ctx.db, templateId);
  const workflow = await createWorkflow(ctx, workflowFromTemplate(template, ctx.config.quotas.minIntervalSeconds));
  await countUse(ctx.db, template, ctx.user.id);
  return { template, workflow };
}
