import type { Step } from "../workflows/steps";

/** What later steps read as `steps.<id>`: a failed step whose failure was handled also has `error.message`. */
export type StepOutcome = { result: unknown; status: string; error?: { message: string } };

/**
 * Where steps run: the run itself, or one item of a for_each, which sees the run's variables and
 * results plus `item` (or its `as` name) and `index`, keeps its own `set` values and results, and
 * checkpoints its steps under keys with the item (`send#3`).
 */
export class Scope {
  constructor(
    readonly context: Record<string, unknown>,
    readonly results: Record<string, StepOutcome>,
    readonly index: number | null,
  ) {}

  key(step: Step): string {
    return this.index === null ? step.id : `${step.id}#${this.index}`;
  }

  forItem(as: string, item: unknown, index: number): Scope {
    const results = { ...this.results };
    return new Scope({ ...this.context, [as]: item, index, steps: results }, results, index);
  }
}

/** A for_each item that must pause or fail, handed to the loop, which does it once all items in progress have stopped. */
export class ItemStopped {
  readonly resumeAt?: number;
  readonly failure?: { step: Step | null; message: string };
  constructor(stop: { resumeAt: number } | { failure: { step: Step | null; message: string } }) {
    Object.assign(this, stop);
  }
}

/** A step's templates or condition could not be evaluated with the data at hand. */
export class StepEvaluationFailed extends Error {
  constructor(
    readonly step: Step,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Step results are checkpointed in D1; larger ones are kept as a truncated preview. */
export const MAX_RESULT_CHARS = 256 * 1024;

/** A result small enough for its checkpoint row; a larger one is kept as a truncated preview. */
export function bounded(result: unknown): unknown {
  const text = JSON.stringify(result ?? null);
  return text.length <= MAX_RESULT_CHARS ? result : { truncated: true, preview: text.slice(0, MAX_RESULT_CHARS) };
}
