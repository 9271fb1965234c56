import { DEFAULT_CONTEXT_CHARS, MAX_CONTEXT_CHARS, MIN_CONTEXT_CHARS } from "./compaction";

/** agent_config.max_steps: model requests per turn or agent step (default, and its upper bound). */
export const DEFAULT_MAX_STEPS = 10;
export const MAX_STEPS_LIMIT = 50;

/** The loop's settings an agent_config may set, read leniently (a stored config was checked when saved). */
export interface LoopSettings {
  maxSteps: number;
  contextChars: number;
}

export function loopSettingsOf(config: Record<string, unknown> | null | undefined): LoopSettings {
  const whole = (value: unknown, fallback: number, min: number, max: number) =>
    typeof value === "number" && Number.isInteger(value) ? Math.min(Math.max(value, min), max) : fallback;
  return {
    maxSteps: whole(config?.max_steps, DEFAULT_MAX_STEPS, 1, MAX_STEPS_LIMIT),
    contextChars: whole(config?.context_chars, DEFAULT_CONTEXT_CHARS, MIN_CONTEXT_CHARS, MAX_CONTEXT_CHARS),
  };
}
