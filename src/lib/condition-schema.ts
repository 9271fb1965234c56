import { z } from "@hono/zod-openapi";
import { OPERATORS, type Condition } from "./conditions";

/** A condition as condition steps and tool policy rules write it (evaluated by ./conditions.ts). */
export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.object({ field: z.string().min(1).max(500), operator: z.enum(OPERATORS), value: z.unknown().optional() }).strict(),
    z.object({ and: z.array(ConditionSchema).min(1).max(20) }).strict(),
    z.object({ or: z.array(ConditionSchema).min(1).max(20) }).strict(),
    z.object({ not: ConditionSchema }).strict(),
  ]),
) as z.ZodType<Condition>;
