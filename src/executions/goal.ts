import { validationFailed, type FieldError } from "../core/errors";
import { schemaProblems } from "../lib/user-json-schema";

/** agent_config.goal (DESIGN §6.3): what a run of the agent is for, and how the hub tells it met it. */
export interface AgentGoal {
  description: string;
  success: { tools_called?: string[]; output_schema?: Record<string, unknown>; judge?: boolean };
}

const MAX_DESCRIPTION = 2_000;
const MAX_TOOLS = 50;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks agent_config.goal, naming each field that is wrong: a goal that does not parse would
 * silently give every run the wrong verdict. `success` may be empty (then a succeeded run meets it).
 */
export function checkAgentGoal(config: Record<string, unknown>, field: string): void {
  const goal = config.goal;
  if (goal === undefined) return;
  const at = `${field}.goal`;
  const errors: FieldError[] = [];
  const wrong = (path: string, message: string) => errors.push({ location: "body", field: `${at}${path}`, message });
  if (!isObject(goal)) wrong("", "An object {description, success}.");
  else {
    const { description, success } = goal;
    if (typeof description !== "string" || !description.trim() || description.length > MAX_DESCRIPTION)
      wrong(".description", `Text of 1 to ${MAX_DESCRIPTION} characters: what a run of the agent should achieve.`);
    if (!isObject(success)) wrong(".success", "An object {tools_called?, output_schema?, judge?}.");
    else {
      const { tools_called: tools, output_schema: schema, judge } = success;
      if (tools !== undefined && (!Array.isArray(tools) || tools.length > MAX_TOOLS))
        wrong(".success.tools_called", `A list of at most ${MAX_TOOLS} tool names.`);
      else
        tools?.forEach((name: unknown, i: number) => {
          if (typeof name !== "string" || !name.trim() || name.length > 200) wrong(`.success.tools_called.${i}`, "A tool name.");
        });
      if (schema !== undefined) {
        const [problem] = isObject(schema) ? schemaProblems(schema) : [{ pointer: "", message: "A JSON Schema object." }];
        if (problem) wrong(".success.output_schema", problem.pointer ? `${problem.pointer}: ${problem.message}` : problem.message);
      }
      if (judge !== undefined && typeof judge !== "boolean") wrong(".success.judge", "true or false.");
      const known = new Set(["tools_called", "output_schema", "judge"]);
      for (const key of Object.keys(success)) if (!known.has(key)) wrong(`.success.${key}`, "Not a goal criterion (tools_called, output_schema, judge).");
    }
  }
  if (errors.length) throw validationFailed(errors, "agent_config.goal is not valid.");
}

/** The goal a stored agent_config holds, if any (checked when it was stored). */
export function agentGoalOf(config: Record<string, unknown> | null | undefined): AgentGoal | undefined {
  const goal = config?.goal;
  if (!isObject(goal) || typeof goal.description !== "string" || !isObject(goal.success)) return undefined;
  return goal as unknown as AgentGoal;
}
