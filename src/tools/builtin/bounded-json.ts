import { z } from "@hono/zod-openapi";
import { nestsDeeperThan, tooDeepMessage } from "../../lib/json-depth";

/**
 * Any JSON value a tool takes as data, refused (422) when it nests deeper than the hub walks:
 * serialising the tool's result or its audit record would otherwise overflow the stack.
 */
export const shallowJson = () => z.unknown().refine((value) => !nestsDeeperThan(value), tooDeepMessage());

/** Whether a record has at most `max` entries: for inputs a tool loops over for every item. */
export const atMostEntries = (max: number) => (record: Record<string, unknown> | undefined) => record === undefined || Object.keys(record).length <= max;
