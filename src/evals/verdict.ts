import { fencedBlock } from "../lib/fenced-block";
import { UserSchemaValidator } from "../lib/user-json-schema";
import type { EvalCase } from "./schemas";

/**
 * What differs between a case's run and what it expects: the listed tools called in that order
 * (others may come between), the forbidden ones never called, the output holding the text, and
 * the output (JSON, bare or fenced) matching the schema. Empty: the case passed.
 */
export function caseFailures(expected: EvalCase["expect"], trajectory: { tool: string }[], output: string): string[] {
  const failures: string[] = [];
  const called = trajectory.map((call) => call.tool);
  if (expected.tools_called?.length) {
    let at = 0;
    for (const name of called) if (name === expected.tools_called[at]) at++;
    if (at < expected.tools_called.length)
      failures.push(`Expected ${expected.tools_called.join(" → ")} to be called in that order; called ${called.join(" → ") || "no tool"}.`);
  }
  for (const name of expected.tools_not_called ?? []) if (called.includes(name)) failures.push(`Expected ${name} not to be called; it was.`);
  if (expected.output_contains !== undefined && !output.includes(expected.output_contains))
    failures.push(`Expected the output to contain "${expected.output_contains}".`);
  if (expected.output_schema) {
    let value: unknown;
    try {
      value = JSON.parse(fencedBlock(output) ?? output);
    } catch {
      failures.push("Expected the output to be JSON matching output_schema; it is not JSON.");
      return failures;
    }
    const check = new UserSchemaValidator(expected.output_schema).validate(value);
    if (!check.valid) {
      const why = check.errors
        .slice(0, 3)
        .map((e) => `${e.instanceLocation}: ${e.error}`.replace(/\.$/, ""))
        .join("; ");
      failures.push(`The output does not match output_schema: ${why}.`);
    }
  }
  return failures;
}
