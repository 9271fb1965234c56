import { MAX_FOR_EACH_ITEMS } from "../../workflows/steps";
import { ItemStopped, bounded } from "../scope";
import type { StepHandler } from "./types";

/**
 * `for_each` runs the inner steps once per item, at most `concurrency` items at a time. Each
 * item's steps are checkpointed under their own keys (`send#3`), so a resumed run replays
 * finished items and never repeats their side effects. The result is, per item, its steps'
 * results by id.
 */
export const runForEach: StepHandler<"for_each"> = async (run, step, scope) => {
  const items = run.evaluate(step, () => run.substitute(step.items, scope.context));
  if (!Array.isArray(items)) return run.failStep(step, scope, 1, `"items" must be an array; it is ${items === null ? "null" : typeof items}.`);
  if (items.length > MAX_FOR_EACH_ITEMS) return run.failStep(step, scope, 1, `"items" has ${items.length} items; at most ${MAX_FOR_EACH_ITEMS}.`);
  const startedAt = run.recorded(scope.key(step))?.startedAt ?? new Date();
  await run.checkpoint(step, scope, { status: "running", attempts: 1, startedAt }, { deferred: true });
  const results: unknown[] = new Array(items.length).fill(null);
  let next = 0;
  const stops: unknown[] = [];
  // Workers take the next item until none is left. An item that must pause (a retry's delay)
  // or fail does not release the lease itself (`ItemStopped`): the others would lose it in the
  // middle of their calls. New items stop, the items in progress finish and checkpoint their
  // current step, and only then does the run pause or fail, once.
  const worker = async () => {
    while (stops.length === 0 && next < items.length) {
      const index = next++;
      const itemScope = scope.forItem(step.as, items[index], index);
      try {
        await run.walk(step.steps, itemScope);
        const own = Object.entries(itemScope.results).filter(([id]) => !(id in scope.results));
        results[index] = Object.fromEntries(own.map(([id, outcome]) => [id, outcome.result]));
      } catch (error) {
        stops.push(error);
      }
    }
  };
  await run.runItems(() => Promise.all(Array.from({ length: Math.min(step.concurrency, items.length) }, worker)));
  if (stops.length) {
    const failure = stops.find((stop) => stop instanceof ItemStopped && stop.failure);
    if (failure instanceof ItemStopped && failure.failure) return run.fail(failure.failure.step, failure.failure.message);
    // Anything else (the lease lost, a fault) goes up as it came.
    const other = stops.find((stop) => !(stop instanceof ItemStopped));
    if (other !== undefined) throw other;
    await run.pause(Math.min(...stops.map((stop) => (stop as ItemStopped).resumeAt ?? Date.now())));
  }
  const stored = bounded(results);
  await run.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: 1 });
  run.apply(step, scope, stored);
};
