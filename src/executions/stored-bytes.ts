/**
 * A run's stored step results are bounded in total (MAX_RUN_STORED_BYTES): each step's result is
 * capped, but a loop of many steps was not. The run's row counts the bytes of results written for
 * it (`stored_bytes`), in the same batch as the results themselves.
 */

import { describeBytes } from "../lib/bytes";

/** Why a run failed: its results would pass the limit with step `stepKey`'s. */
export const runStoredTooMuch = (limit: number, stepKey: string) =>
  `The run stored more than ${describeBytes(limit)} of step results (MAX_RUN_STORED_BYTES); the result of step "${stepKey}" was not kept. ` +
  "Keep less in each step's result, or split the work across runs.";

/** Why one step's result was not kept. */
export const resultNotKept = (bytes: number, limit: number) =>
  `Its result (${describeBytes(bytes)}) would take the run past ${describeBytes(limit)} of stored step results (MAX_RUN_STORED_BYTES).`;
