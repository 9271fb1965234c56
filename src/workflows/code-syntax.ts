import type { FieldError } from "../core/errors";
import { codeSyntaxProblem } from "../lib/sandbox/run-code";
import { type Step, nestedStepLists } from "./steps";

/**
 * Code steps whose code does not compile (compiled only, never run), each named by its field
 * as validateSteps names fields: `steps.2.code`, `steps.0.then.1.code`.
 */
export async function codeSyntaxErrors(steps: Step[], field = "steps"): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const walk = async (list: Step[], path: string): Promise<void> => {
    for (const [index, step] of list.entries()) {
      const here = `${path}.${index}`;
      if (step.type === "code") {
        const problem = await codeSyntaxProblem(step.code);
        if (problem) errors.push({ location: "body", field: `${here}.code`, message: `Step "${step.id}": ${problem}` });
      }
      for (const inner of nestedStepLists(step)) await walk(inner.steps, `${here}.${inner.field}`);
    }
  };
  await walk(steps, field);
  return errors;
}
