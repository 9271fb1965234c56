import type { Step } from "../../workflows/steps";
import { runAgent } from "./agent";
import { runChildWorkflow } from "./workflow";
import { runCode } from "./code";
import { runCondition } from "./condition";
import { runDelay } from "./delay";
import { runForEach } from "./for-each";
import { runLlm } from "./llm";
import { runSet } from "./set";
import { runTool } from "./tool";
import type { StepHandler } from "./types";
import { runWaitForEvent } from "./wait-for-event";

/** Every step type's handler: a new step type is its schema (workflows/steps.ts), a file here and a line below. */
export const STEP_HANDLERS: { [T in Step["type"]]: StepHandler<T> } = {
  set: runSet,
  condition: runCondition,
  delay: runDelay,
  tool: runTool,
  wait_for_event: runWaitForEvent,
  llm: runLlm,
  agent: runAgent,
  for_each: runForEach,
  workflow: runChildWorkflow,
  code: runCode,
};

/** Steps that only compute (no read, write or call outside): they may run before a deferred start is written. */
export const PURE_STEPS = new Set<Step["type"]>(["set", "condition"]);
